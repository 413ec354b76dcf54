import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process whose standard output a test reads line by line as it comes, to kill it at a
/// chosen moment (crash tests). Its output is read on a thread of its own and every wait
/// suspends with a deadline, so no cooperative thread is blocked; a child still running when
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
        let output = Pipe(), errorOutput = Pipe()
        process.standardOutput = output
        process.standardError = errorOutput
        try process.run()
        self.process = process
        let reading = output.fileHandleForReading
        Thread { [self] in
            var buffer = Data()
            while true {
                let chunk = reading.availableData  // off-pool: the reader's own thread
                guard !chunk.isEmpty else { break }
                buffer.append(chunk)
                var complete: [String] = []
                while let newline = buffer.firstIndex(of: 0x0A) {
                    complete.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
                lock.withLock { lines += complete }
            }
            lock.withLock { closed = true }
        }.start()
        let errorReading = errorOutput.fileHandleForReading
        Thread { [self] in
            let data = errorReading.readDataToEndOfFile()  // off-pool: the reader's own thread
            lock.withLock { errors = data }
        }.start()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// The next line the child printed, or nil when it closed its output, or printed nothing
    /// for `timeout` seconds.
    public func nextLine(timeout: Double = 30) async -> String? {
        let clock = ContinuousClock()
        let end = clock.now + .seconds(timeout)
        while clock.now < end {
            let (line, isClosed): (String?, Bool) = lock.withLock {
                if !lines.isEmpty { return (lines.removeFirst(), false) }
                return (nil, closed)
            }
            if let line { return line }
            if isClosed { return nil }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return nil
    }

    /// Sends `signal`.
    public func signal(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits for the child to end, at most `timeout` seconds (then kills it and throws).
    public func exit(timeout: Double = 60) async throws {
        do {
            try await Deadline.wait(seconds: timeout, "\(process.executableURL?.lastPathComponent ?? "the child") to exit") { !self.process.isRunning }
        } catch {
            signal(SIGKILL)
            throw error
        }
    }

    /// What the child printed on standard error, once it has ended.
    public var standardError: String { lock.withLock { String(decoding: errors, as: UTF8.self) } }
}
