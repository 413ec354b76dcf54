import Foundation
import JSONText
import ValueTree

/// Appends one JSON object per record to a file:
/// `{"time":"…","level":"warning","category":"position","message":"…","metadata":{…}}`.
// @unchecked: the file handle is written under `lock` only.
public final class JSONLinesLogSink: LogSink, @unchecked Sendable {
    private let handle: FileHandle
    private let lock = NSLock()

    /// Opens (creating if needed) the file at `path` for appending.
    public init(path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw LogSinkError("cannot create the log file \(path)")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else {
            throw LogSinkError("cannot open the log file \(path) for writing")
        }
        handle.seekToEndOfFile()
        self.handle = handle
    }

    deinit {
        try? handle.close()
    }

    public func write(_ record: LogRecord) {
        let line = Data((JSONLinesLogSink.format(record) + "\n").utf8)
        lock.lock()
        defer { lock.unlock() }
        handle.write(line)
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
        return (try? JSONWriter(style: .compact).write(.dictionary(pairs))) ?? "{}"
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
