import Foundation
import TimelineEngineValueTree

/// Times as the store reads them back: within the years 1 to 9999 that RFC 3339 and the engine's
/// output can write. A damaged file can hold any number where a time belongs (1e300, infinity);
/// such a time is taken as the nearest of those bounds (not a number: the earliest), so that
/// every command that prints or compares it goes on.
enum StoredTime {
    /// A time stored as seconds since 1970.
    static func since1970(_ seconds: Double) -> Date {
        Date(timeIntervalSince1970: bounded(seconds))
    }

    /// A time stored as `Date` holds it, seconds since 2001-01-01 (a cached post's).
    static func sinceReferenceDate(_ seconds: Double) -> Date {
        let shift = Date.timeIntervalBetween1970AndReferenceDate
        let range = DateValue.representableSeconds
        // Within the range, exactly as stored (bit for bit, the point of storing it so).
        if (range.lowerBound - shift...range.upperBound - shift).contains(seconds) { return Date(timeIntervalSinceReferenceDate: seconds) }
        return since1970(seconds + shift)
    }

    private static func bounded(_ seconds: Double) -> Double {
        let range = DateValue.representableSeconds
        return seconds.isNaN ? range.lowerBound : min(range.upperBound, max(range.lowerBound, seconds))
    }
}
