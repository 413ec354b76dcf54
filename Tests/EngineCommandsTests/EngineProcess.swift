import Foundation
import TestSupport

/// Runs the built `engine` executable and captures what it prints.
struct EngineProcess {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static let executable: URL = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("engine")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return Fixtures.repositoryURL(".build/debug/engine")
    }()

    /// Runs `engine ARGUMENTS` in the repository's top level.
    static func run(_ arguments: [String], in directory: URL = Fixtures.repository, environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }
}

/// An `engine serve` running in the background on a free loopback port.
final class RunningServer {
    let process: Process
    let port: Int
    private let errors: Pipe

    /// Starts `engine serve ARGUMENTS --listen 127.0.0.1:0` and waits until it listens.
    init(_ arguments: [String], in directory: URL = Fixtures.repository) throws {
        process = Process()
        process.executableURL = EngineProcess.executable
        process.arguments = ["serve"] + arguments + ["--listen", "127.0.0.1:0"]
        process.currentDirectoryURL = directory
        errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var seen = ""
        let handle = errors.fileHandleForReading
        while true {
            let data = handle.availableData
            guard !data.isEmpty else { throw ServerStartError(output: seen) }
            seen += String(decoding: data, as: UTF8.self)
            if let range = seen.range(of: "listening on http://127.0.0.1:"),
               let port = Int(seen[range.upperBound...].prefix { $0.isNumber }), seen[range.upperBound...].contains(" ") {
                self.port = port
                return
            }
        }
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Sends SIGTERM and waits; the exit status and the rest of standard error.
    func stop() -> (status: Int32, stderr: String) {
        process.terminate()
        let rest = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: rest, as: UTF8.self))
    }

    deinit {
        if process.isRunning { process.terminate() }
    }
}

struct ServerStartError: Error, CustomStringConvertible {
    let output: String
    var description: String { "engine serve did not start: \(output)" }
}
