import Foundation
import TimelineEngineValueTree

/// Writes human-readable lines to standard error:
/// `2026-11-21T14:05:09Z warning [position] message key=value`.
public struct StderrLogSink: LogSink {
    public init() {}

    public func write(_ record: LogRecord) {
        // A failed write to standard error (closed, or a full disk) loses the record, never the process.
        _ = DescriptorWriter.write(Data((StderrLogSink.format(record) + "\n").utf8), to: STDERR_FILENO)
    }

    /// The text of one record, without a newline.
    /// The message and the values are escaped, not cut (`TerminalText.escaped`): a line break in a post id
    /// cannot forge a log line, nor an escape sequence reach the terminal.
    public static func format(_ record: LogRecord) -> String {
        var line =
            "\(JSONLinesLogSink.timestamp(record.date)) \(record.level) [\(record.categoryName)] \(TerminalText.escaped(record.message, limit: .max))"
        for key in record.metadata.keys.sorted() {
            line += " \(TerminalText.escaped(key, limit: .max))=\(TerminalText.escaped(record.metadata[key]!, limit: .max))"
        }
        return line
    }
}
