/// A hybrid logical clock timestamp (Kulkarni, Demirbas et al., "Logical Physical Clocks",
/// 2014): milliseconds of physical time in the high 48 bits, a logical counter in the low 16. As
/// one 64-bit integer it sorts the way the clock orders events, in Swift, in SQLite and in the
/// wire format's 16 hexadecimal digits.
public struct HybridTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    public init(milliseconds: UInt64, counter: UInt16) {
        rawValue = (min(milliseconds, Self.maximumMilliseconds) << 16) | UInt64(counter)
    }

    /// The largest physical time a timestamp holds (48 bits of milliseconds: the year 10889).
    public static let maximumMilliseconds: UInt64 = (1 << 48) - 1

    public static let zero = HybridTimestamp(rawValue: 0)

    /// Physical milliseconds since 1970.
    public var milliseconds: UInt64 { rawValue >> 16 }
    /// The logical counter within one millisecond.
    public var counter: UInt16 { UInt16(truncatingIfNeeded: rawValue) }

    public static func < (lhs: HybridTimestamp, rhs: HybridTimestamp) -> Bool { lhs.rawValue < rhs.rawValue }

    /// 16 lowercase hexadecimal digits, as the wire format writes it (sorts as the clock does).
    public var description: String {
        let digits = String(rawValue, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Reads the wire form: exactly 16 hexadecimal digits.
    public init?(_ text: String) {
        guard text.utf8.count == 16, let value = UInt64(text, radix: 16) else { return nil }
        rawValue = value
    }
}
