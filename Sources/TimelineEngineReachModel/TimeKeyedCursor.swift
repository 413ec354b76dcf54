import Foundation
import TimelineEngineFormats

/// A cursor that names a place in the feed by time: the reference Bluesky AppView's timeline
/// cursor (`TimeCidKeyset`), `<milliseconds>__<cid>`, which asks for the posts whose sort time and
/// CID come after it, and the same shape with `::` or an RFC 3339 time. The protocol calls cursors
/// opaque: a cursor is read as one only when the server's own has this shape, and a page asked
/// with a cursor made from it is used only when its answer shows it was honoured
/// (`ReachGoal.timeKeyedVerdict(in:)`).
public struct TimeKeyedCursor: Sendable, Equatable, CustomStringConvertible {
    /// How the time is written.
    public enum TimeFormat: Sendable, Equatable {
        /// Milliseconds since 1970, as the reference AppView writes it.
        case milliseconds
        /// An RFC 3339 time with milliseconds, in UTC.
        case rfc3339
    }

    /// The time the cursor names: pages from it begin with posts older than it.
    public var time: Date
    /// What follows the time: the CID of the post it was made from.
    public var secondary: String
    /// `__` or `::`.
    public var separator: String
    public var format: TimeFormat

    public init(time: Date, secondary: String, separator: String = "__", format: TimeFormat = .milliseconds) {
        self.time = time
        self.secondary = secondary
        self.separator = separator
        self.format = format
    }

    /// The cursor `text` names, or nil when it is not of a time-keyed shape: one separator, a
    /// time (milliseconds of 10 to 15 digits, or RFC 3339) before it, a non-empty word of letters
    /// and digits after it.
    public init?(_ text: String) {
        for separator in ["__", "::"] {
            let parts = text.components(separatedBy: separator)
            guard parts.count == 2, let timeText = parts.first, let secondary = parts.last, !secondary.isEmpty,
                secondary.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
            else { continue }
            if (10...15).contains(timeText.count), timeText.allSatisfy({ $0.isASCII && $0.isNumber }), let milliseconds = Int64(timeText) {
                self.init(time: Date(timeIntervalSince1970: Double(milliseconds) / 1000), secondary: secondary, separator: separator)
                return
            }
            if timeText.first?.isNumber == true, let time = Timestamp.parse(timeText) {
                self.init(time: time, secondary: secondary, separator: separator, format: .rfc3339)
                return
            }
        }
        return nil
    }

    /// The same shape at `time` (the secondary kept: it matters only between posts of the same
    /// millisecond).
    public func moved(to time: Date) -> TimeKeyedCursor {
        var cursor = self
        cursor.time = time
        return cursor
    }

    public var description: String {
        switch format {
        case .milliseconds:
            let milliseconds = Int64((time.timeIntervalSince1970 * 1000).rounded(.down))
            return "\(milliseconds)\(separator)\(secondary)"
        case .rfc3339:
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return "\(formatter.string(from: time))\(separator)\(secondary)"
        }
    }
}
