import Foundation
import TimelineEngineCore
import TimelineEngineSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process whose standard output a test reads line by line as it comes, to kill it at a
/// chosen moment (crash tests). Its output is read on threads of its own (`PipeDrain`) and every
/// wait suspends with a deadline, so no cooperative thread is blocked; a child still running when
/// the handle goes away is killed.
public final class StreamingChild: @unchecked Sendable {
    // @unchecked: `lines`, `closed` and `errors` are only touched under `lock`.
    public let process: Process
    private let lock = NSLock()
    private var lines: [String] = []
    private var closed = false
    private var errors = Data()

    /// Starts `executable ARGUMENTS`.
    public init(_ executable: URL, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        let output = Pipe()
        let errorOutput = Pipe()
        process.standardOutput = output
        process.standardError = errorOutput
        try process.run()
        self.process = process
        // The pipes are read by threads of their own (`PipeDrain`), as `BackgroundProcess` reads.
        let buffer = Locked(Data())
        PipeDrain.start(
            output.fileHandleForReading,
            chunk: { [self] chunk in
                let complete: [String] = buffer.withLock { pending in
                    pending.append(chunk)
                    var lines: [String] = []
                    while let newline = pending.firstIndex(of: 0x0A) {
                        lines.append(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                        pending.removeSubrange(pending.startIndex...newline)
                    }
                    return lines
                }
                lock.withLock { lines += complete }
            },
            end: { [self] in lock.withLock { closed = true } })
        PipeDrain.start(errorOutput.fileHandleForReading, chunk: { [self] chunk in lock.withLock { errors.append(chunk) } })
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// The next line the child printed, or nil when it closed its output, or printed nothing
    /// for `timeout` seconds.
    public func nextLine(timeout: Double = 30) async -> String? {
        let clock = ContinuousClock()
        let end = clock.now + .seconds(timeout)
        var checks = 0
        while true {
            // A line that came is taken even past the deadline: a test that could not run for a
            // while (its threads busy) has not waited for the child.
            let (line, isClosed): (String?, Bool) = lock.withLock {
                if !lines.isEmpty { return (lines.removeFirst(), false) }
                return (nil, closed)
            }
            if let line { return line }
            if isClosed || clock.now >= end { return nil }
            // 5 ms, doubling up to 100 ms, as `Deadline` waits: a crash test reads many lines.
            try? await Task.sleep(for: Deadline.pause(after: checks))
            checks += 1
        }
    }

    /// Sends `signal`.
    public func signal(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits for the child to end, at most `timeout` seconds (then kills it and throws).
    public func exit(timeout: Double = 60) async throws {
        do {
            try await Deadline.wait(seconds: timeout, "\(process.executableURL?.lastPathComponent ?? "the child") to exit") {
                !self.process.isRunning
            }
        } catch {
            signal(SIGKILL)
            throw error
        }
    }

    /// What the child printed on standard error so far.
    public var standardError: String { lock.withLock { String(decoding: errors, as: UTF8.self) } }
}
