import Foundation
import TimelineEngineJSONText
import TimelineEngineValueTree

#if canImport(Glibc)
import TimelineEngineSupport
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Appends one JSON object per record to a file:
/// `{"time":"…","level":"warning","category":"position","message":"…","metadata":{…}}`.
///
/// Only a regular file is a log file: a FIFO would block every command until something read it,
/// and a device is no log. When a write fails (a full disk), the sink says so once on standard
/// error and writes every later record there, as JSON lines; it never stops the process.
public final class JSONLinesLogSink: LogSink, Sendable {
    private let descriptor: Int32
    private let path: String
    /// Whether a write failed; held while writing, so that records keep their order.
    private let failed = Locked(false)

    /// Opens (creating if needed) the regular file at `path` for appending.
    public init(path: String) throws {
        // Non-blocking, so that opening a FIFO returns at once (and is then refused).
        let opened = open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0o644)
        guard opened >= 0 else {
            let code = errno
            switch code {
            case ENXIO, EISDIR: throw LogSinkError("the log file \(path) is not a regular file")
            case ENOENT: throw LogSinkError("cannot create the log file \(path): \(DescriptorWriter.message(code))")
            default: throw LogSinkError("cannot open the log file \(path) for writing: \(DescriptorWriter.message(code))")
            }
        }
        var status = stat()
        guard fstat(opened, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(opened)
            throw LogSinkError("the log file \(path) is not a regular file")
        }
        descriptor = opened
        self.path = path
    }

    /// A sink on a descriptor already open (the tests' way to make writes fail).
    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        close(descriptor)
    }

    /// True once a write failed and records go to standard error.
    var hasFailed: Bool { failed.withLock { $0 } }

    public func write(_ record: LogRecord) {
        let line = Data((JSONLinesLogSink.format(record) + "\n").utf8)
        failed.withLock { failed in
            if !failed, let code = DescriptorWriter.write(line, to: descriptor) {
                failed = true
                let warning =
                    "warning: the log file \(path) cannot be written (\(DescriptorWriter.message(code))); records go to standard error from now on\n"
                _ = DescriptorWriter.write(Data(warning.utf8), to: STDERR_FILENO)
            }
            if failed { _ = DescriptorWriter.write(line, to: STDERR_FILENO) }
        }
    }

    /// The JSON object of one record, on one line.
    public static func format(_ record: LogRecord) -> String {
        var pairs: [(String, Value)] = [
            ("time", .string(timestamp(record.date))),
            ("level", .string(record.level.rawValue)),
            ("category", .string(record.categoryName)),
            ("message", .string(record.message)),
        ]
        if !record.metadata.isEmpty {
            pairs.append(("metadata", .dictionary(record.metadata.keys.sorted().map { ($0, Value.string(record.metadata[$0]!)) })))
        }
        pairs.append(("source", .string(record.source)))
        do {
            return try JSONWriter(style: .compact).write(.dictionary(pairs))
        } catch {
            // Every member is a string, so this is not reached; if it were, the line says why.
            return #"{"level":"error","message":"# + JSONWriter.quoted("a log record has no JSON form: \(error.description)") + "}"
        }
    }

    /// RFC 3339 UTC with milliseconds.
    static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = milliseconds / 1000
        let fraction = Int(milliseconds % 1000)
        guard let value = DateValue(Date(timeIntervalSince1970: TimeInterval(seconds))) else { return "" }
        var text = value.description
        text.removeLast()
        return text + "." + String(format: "%03d", fraction) + "Z"
    }
}
