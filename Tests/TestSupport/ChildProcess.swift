import Dispatch
import Foundation

/// Child processes for tests, run without blocking Swift's cooperative threads: the pipes are
/// read and the exit awaited on dispatch queues of their own, and every run has a deadline
/// after which the child is killed (SIGKILL) and the run fails naming it.
public enum ChildProcess {
    /// What a child printed and how it ended.
    public struct Result: Sendable {
        public let status: Int32
        public let stdout: String
        public let stderr: String
    }

    /// Runs `executable ARGUMENTS` in `directory` and returns once it exits, or throws
    /// `Deadline.Expired` after `timeout` seconds, having killed it.
    public static func run(
        _ executable: URL, _ arguments: [String], in directory: URL, environment: [String: String] = [:],
        stdin: Data? = nil, timeout: Double = 300
    ) async throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = stdin.map { _ in Pipe() }
        if let input { process.standardInput = input } else { process.standardInput = FileHandle.nullDevice }
        try process.run()
        if let input, let stdin {
            // Each blocking step on a serial queue of its own, which has a thread of its own: the
            // global queues share their threads with Swift's cooperative pool on Linux, and a
            // child that runs for seconds would hold one of its two threads that long.
            DispatchQueue(label: "child-process.stdin").async {
                input.fileHandleForWriting.write(stdin)
                try? input.fileHandleForWriting.close()
            }
        }
        let killer = Task {
            try await Task.sleep(for: .seconds(timeout))
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        let (outData, errData) = await withCheckedContinuation { (continuation: CheckedContinuation<(Data, Data), Never>) in
            let group = DispatchGroup()  // off-pool: notified on a dispatch queue, never waited on
            let outBox = DataBox()
            let errBox = DataBox()
            for (handle, box) in [(out.fileHandleForReading, outBox), (err.fileHandleForReading, errBox)] {
                group.enter()
                DispatchQueue(label: "child-process.read").async {
                    box.data = handle.readDataToEndOfFile()  // off-pool: a dispatch queue of its own
                    group.leave()
                }
            }
            group.notify(queue: DispatchQueue(label: "child-process.exit")) {
                process.waitUntilExit()  // off-pool: after the group's notification, on a dispatch queue
                continuation.resume(returning: (outBox.data, errBox.data))
            }
        }
        killer.cancel()
        let result = Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
        if process.terminationReason == .uncaughtSignal, process.terminationStatus == SIGKILL {
            throw Deadline.Expired(
                description:
                    "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) ran longer than \(timeout) s and was killed; it printed: \(result.stderr)"
            )
        }
        return result
    }

    /// Data handed from a reading queue to the group's notification.
    // @unchecked: written once by its reading queue before the group's notification reads it.
    private final class DataBox: @unchecked Sendable {
        var data = Data()
    }
}

/// A child that runs in the background (a server) with its standard error collected as it
/// comes, read off the cooperative threads (`PipeDrain`).
public final class BackgroundProcess: Sendable {
    public let process: Process
    private let collected = CollectedText()
    private let output = CollectedText()

    /// Starts `executable ARGUMENTS` in `directory`; its standard output is collected with
    /// `captureOutput`, and goes nowhere otherwise.
    public init(
        _ executable: URL, _ arguments: [String], in directory: URL, environment: [String: String] = [:],
        captureOutput: Bool = false
    ) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let errors = Pipe()
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        var drained = [(errors, collected)]
        if captureOutput {
            let out = Pipe()
            process.standardOutput = out
            drained.append((out, output))
        } else {
            process.standardOutput = FileHandle.nullDevice
        }
        try process.run()
        for (pipe, text) in drained {
            PipeDrain.start(pipe.fileHandleForReading, chunk: { text.append($0) }, end: { text.finish() })
        }
        self.process = process
    }

    /// Standard error so far.
    public var stderr: String { collected.text }

    /// Standard output so far (with `captureOutput`).
    public var stdout: String { output.text }

    /// Waits until standard error matches `condition`, or fails after `seconds` (or once the
    /// child has ended without it).
    public func waitForOutput(seconds: Double = 60, _ what: String, _ condition: @escaping @Sendable (String) -> Bool) async throws {
        try await Deadline.wait(seconds: seconds, what) {
            if condition(self.stderr) { return true }
            if !self.process.isRunning, self.collected.isFinished {
                throw Deadline.Expired(description: "the process ended before \(what): \(self.stderr)")
            }
            return false
        }
    }

    /// Sends `signal` (SIGTERM by default), waits up to `seconds` for the exit (then kills),
    /// and returns the exit status and all of standard error.
    public func stop(signal: Int32 = SIGTERM, seconds: Double = 60) async throws -> (status: Int32, stderr: String) {
        if process.isRunning { kill(process.processIdentifier, signal) }
        do {
            try await Deadline.wait(seconds: seconds, "the process to exit") { !self.process.isRunning && self.collected.isFinished }
        } catch {
            kill(process.processIdentifier, SIGKILL)
            throw error
        }
        return (process.terminationStatus, stderr)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    // @unchecked: `data` and `finished` are read and written under `lock` only.
    private final class CollectedText: @unchecked Sendable {
        private let lock = NSLock()
        private var data = Data()
        private var finished = false

        func append(_ more: Data) { lock.withLock { data.append(more) } }
        func finish() { lock.withLock { finished = true } }
        var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
        var isFinished: Bool { lock.withLock { finished } }
    }
}
