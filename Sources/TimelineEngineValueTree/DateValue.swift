import Foundation

/// A calendar date and time in UTC, to the second: the value of a property list's `<date>`.
///
/// Kept as its fields, so that reading and writing a document reproduces the text exactly.
public struct DateValue: Hashable, Sendable, Comparable, CustomStringConvertible {
    // Stored compactly (8 bytes) so that values of large documents stay small.
    private let storedYear: Int16
    private let storedMonth: UInt8
    private let storedDay: UInt8
    private let storedHour: UInt8
    private let storedMinute: UInt8
    private let storedSecond: UInt8

    public var year: Int { Int(storedYear) }
    public var month: Int { Int(storedMonth) }
    public var day: Int { Int(storedDay) }
    public var hour: Int { Int(storedHour) }
    public var minute: Int { Int(storedMinute) }
    public var second: Int { Int(storedSecond) }

    /// Creates a date; returns nil for an impossible one (month 13, February 30, hour 24, …).
    public init?(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        guard (0...9999).contains(year), (1...12).contains(month),
            (1...DateValue.daysIn(month: month, year: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        storedYear = Int16(year)
        storedMonth = UInt8(month)
        storedDay = UInt8(day)
        storedHour = UInt8(hour)
        storedMinute = UInt8(minute)
        storedSecond = UInt8(second)
    }

    /// The seconds since 1970 of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the dates this
    /// type (and RFC 3339) can write.
    public static let representableSeconds: ClosedRange<Double> = -62_135_596_800...253_402_300_799

    /// Creates the date of a Foundation `Date`, dropping fractions of a second; nil for a date
    /// outside years 1 to 9999 (or not a number), which no plist or RFC 3339 text can hold.
    public init?(_ date: Date) {
        let interval = date.timeIntervalSince1970.rounded(.down)
        guard DateValue.representableSeconds.contains(interval) else { return nil }
        let total = Int64(interval)
        var days = total / 86_400
        var seconds = total % 86_400
        if seconds < 0 {
            seconds += 86_400
            days -= 1
        }
        let (y, m, d) = DateValue.civil(fromDays: days)
        self.init(
            year: Int(y), month: m, day: d, hour: Int(seconds / 3600),
            minute: Int(seconds % 3600 / 60), second: Int(seconds % 60))
    }

    /// Parses the property-list form `YYYY-MM-DDTHH:MM:SSZ`.
    public static func parse(_ text: some Collection<UInt8>) -> DateValue? {
        let bytes = Array(text)
        guard bytes.count == 20, bytes[19] == UInt8(ascii: "Z") else { return nil }
        return bytes.withUnsafeBufferPointer { parseDateAndTime($0, separators: [UInt8(ascii: "T")], clampingLeapSecond: false) }
    }

    /// Parses the `YYYY-MM-DDTHH:MM:SS` that starts `bytes` (19 bytes), with the date and time
    /// separated by one of `separators`. A second of 60 (a leap second) is read as 59 when
    /// `clampingLeapSecond`, and refused otherwise. What follows the 19 bytes is the caller's.
    /// The one parser of dates and times: property lists and RFC 3339 timestamps use it.
    public static func parseDateAndTime(_ bytes: UnsafeBufferPointer<UInt8>, separators: [UInt8], clampingLeapSecond: Bool) -> DateValue? {
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), separators.contains(bytes[10]),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? { digits(bytes, range) }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        return DateValue(
            year: year, month: month, day: day, hour: hour, minute: minute,
            second: clampingLeapSecond ? min(second, 59) : second)
    }

    /// The decimal number written with the ASCII digits `bytes[range]`; nil if one is not a digit.
    public static func digits(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        var value = 0
        for index in range {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// The Foundation `Date` this denotes.
    public var date: Date {
        let days = DateValue.days(fromCivil: Int64(year), month: month, day: day)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`.
    public var description: String {
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))Z"
    }

    public static func < (lhs: DateValue, rhs: DateValue) -> Bool {
        (lhs.year, lhs.month, lhs.day, lhs.hour, lhs.minute, lhs.second)
            < (rhs.year, rhs.month, rhs.day, rhs.hour, rhs.minute, rhs.second)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Howard Hinnant's days-from-civil and civil-from-days, proleptic Gregorian calendar.
    static func days(fromCivil year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64((month + 9) % 12)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = Int(doy - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
