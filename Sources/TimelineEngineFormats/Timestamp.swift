import Foundation
import TimelineEngineValueTree

/// RFC 3339 timestamps: `2022-12-07T21:31:40Z`, with optional fractional seconds and a `Z` or
/// `±HH:MM` offset. Parsed by hand: this runs once per post, and `ISO8601DateFormatter` is
/// several times slower.
public enum Timestamp {
    /// The time `text` says, or nil when it is not an RFC 3339 timestamp or names a time outside
    /// the years 1 to 9999 (UTC), which no timestamp can write back.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// Parses the UTF-8 bytes of a timestamp.
    public static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count >= 20,
            let date = DateValue.parseDateAndTime(
                bytes, separators: [UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")],
                clampingLeapSecond: true)
        else { return nil }
        func number(_ range: Range<Int>) -> Int? { DateValue.digits(bytes, range) }
        var index = 19
        var fraction = 0.0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                fraction += Double(bytes[index] - UInt8(ascii: "0")) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == bytes.count, bytes[index + 3] == UInt8(ascii: ":"),
                let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6), hours < 24, minutes < 60
            else { return nil }
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == UInt8(ascii: "+") ? 1 : -1)
        default:
            return nil
        }
        // An offset can carry a date past the years 1 to 9999 (`0001-01-01T00:00:00+01:00`),
        // which no timestamp can write back: such a time is refused as it is read.
        let parsed = date.date.addingTimeInterval(fraction - Double(offset))
        let bounds = DateValue.representableSeconds
        guard parsed.timeIntervalSince1970 >= bounds.lowerBound, parsed.timeIntervalSince1970 < bounds.upperBound + 1 else { return nil }
        return parsed
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, with milliseconds when the date has a fraction; the nearest of
    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z for a date beyond them (a damaged store's),
    /// which RFC 3339 cannot write.
    public static func format(_ date: Date) -> String {
        let bounds = DateValue.representableSeconds
        guard date.timeIntervalSince1970 >= bounds.lowerBound else { return format(Date(timeIntervalSince1970: bounds.lowerBound)) }
        guard date.timeIntervalSince1970 < bounds.upperBound + 1 else { return format(Date(timeIntervalSince1970: bounds.upperBound)) }
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let milliseconds = Int(((date.timeIntervalSince1970 - seconds) * 1000).rounded())
        guard let value = DateValue(Date(timeIntervalSince1970: seconds)) else { return "" }
        if milliseconds == 0 { return value.description }
        var text = value.description
        text.removeLast()
        return text + "." + String(format: "%03d", min(999, milliseconds)) + "Z"
    }
}
