import Foundation

/// Reads the lines a child process prints, with a deadline: a child that reports nothing makes
/// the test fail with a message instead of blocking it or trapping.
struct ChildLines {
    let handle: FileHandle
    private var buffer = Data()

    init(_ pipe: Pipe) {
        handle = pipe.fileHandleForReading
    }

    /// The next complete line, or nil when none came within `timeout` seconds or the child
    /// closed its output.
    mutating func next(timeout: Double = 30) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var descriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(min(left, 1) * 1000)) > 0 else { continue }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }
}
