import Foundation
import TimelineEngineTestSupport

/// Runs the built `engine` executable and captures what it prints, off the cooperative
/// threads and with a deadline (`ChildProcess`).
struct EngineProcess {
    typealias Result = ChildProcess.Result

    static let executable: URL = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("engine")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return Fixtures.repositoryURL(".build/debug/engine")
    }()

    /// Runs `engine ARGUMENTS` in the repository's top level.
    static func run(
        _ arguments: [String], in directory: URL = Fixtures.repository, environment: [String: String] = [:],
        timeout: Double = 300
    ) async throws -> Result {
        try await ChildProcess.run(executable, arguments, in: directory, environment: environment, timeout: timeout)
    }
}

/// An `engine serve` running in the background on a free loopback port.
final class RunningServer: Sendable {
    let child: BackgroundProcess
    let port: Int

    /// Starts `engine serve ARGUMENTS --listen 127.0.0.1:PORT` (0: any free port) and waits (at
    /// most 60 s) until it listens.
    init(_ arguments: [String], in directory: URL = Fixtures.repository, port wanted: Int = 0) async throws {
        child = try BackgroundProcess(EngineProcess.executable, ["serve"] + arguments + ["--listen", "127.0.0.1:\(wanted)"], in: directory)
        try await child.waitForOutput("engine serve to listen") { Self.port(in: $0) != nil }
        port = Self.port(in: child.stderr)!
    }

    /// The port of "listening url=http://127.0.0.1:PORT", once the line is complete.
    static func port(in text: String) -> Int? {
        guard let range = text.range(of: "listening url=http://127.0.0.1:") else { return nil }
        let rest = text[range.upperBound...]
        guard rest.contains(where: { !$0.isNumber }) else { return nil }
        return Int(rest.prefix { $0.isNumber })
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Sends SIGTERM and waits; the exit status and the rest of standard error.
    func stop() async throws -> (status: Int32, stderr: String) {
        try await child.stop()
    }
}
