/// An integer in the range property lists allow: every `Int64` and every `UInt64`, that is
/// [−2^63, 2^64 − 1].
///
/// Kept as a sign and a magnitude so that both ends of the range are exact.
public struct IntegerValue: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// True for values below zero. Zero is never negative.
    public let isNegative: Bool
    /// The absolute value. At most 2^63 when `isNegative`.
    public let magnitude: UInt64

    /// Creates an integer from a sign and a magnitude; returns nil outside [−2^63, 2^64 − 1].
    public init?(isNegative: Bool, magnitude: UInt64) {
        if isNegative && magnitude > UInt64(Int64.max) + 1 { return nil }
        self.isNegative = isNegative && magnitude != 0
        self.magnitude = magnitude
    }

    public init(_ value: Int64) {
        isNegative = value < 0
        magnitude = value.magnitude
    }

    public init(_ value: UInt64) {
        isNegative = false
        magnitude = value
    }

    public init(_ value: Int) {
        self.init(Int64(value))
    }

    /// The value as an `Int64`, when it fits.
    public var int64Value: Int64? {
        if isNegative {
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// The value as an `Int`, when it fits.
    public var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }

    /// The value as an `UInt64`, when it is not negative.
    public var uint64Value: UInt64? { isNegative ? nil : magnitude }

    /// The nearest `Double`.
    public var doubleValue: Double { isNegative ? -Double(magnitude) : Double(magnitude) }

    /// Decimal digits with a leading `-` for negative values.
    public var description: String { isNegative ? "-\(magnitude)" : "\(magnitude)" }

    public static func < (lhs: IntegerValue, rhs: IntegerValue) -> Bool {
        switch (lhs.isNegative, rhs.isNegative) {
        case (true, false): return true
        case (false, true): return false
        case (false, false): return lhs.magnitude < rhs.magnitude
        case (true, true): return lhs.magnitude > rhs.magnitude
        }
    }

    /// Parses decimal digits with an optional sign, or `0x`/`0X` hexadecimal digits (property-list
    /// notation). No whitespace, no empty digit string. Returns nil when the text is not an
    /// integer or is out of range; `isOutOfRange` tells the two apart.
    public static func parse(_ text: some Collection<UInt8>) -> ParseResult {
        var index = text.startIndex
        var negative = false
        if index != text.endIndex, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
            negative = text[index] == UInt8(ascii: "-")
            index = text.index(after: index)
        }
        var radix: UInt64 = 10
        if index != text.endIndex, text[index] == UInt8(ascii: "0") {
            let next = text.index(after: index)
            if next != text.endIndex, text[next] == UInt8(ascii: "x") || text[next] == UInt8(ascii: "X") {
                radix = 16
                index = text.index(after: next)
            }
        }
        if index == text.endIndex { return .notAnInteger }
        var magnitude: UInt64 = 0
        var overflow = false
        while index != text.endIndex {
            let byte = text[index]
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: digit = UInt64(byte - UInt8(ascii: "A") + 10)
            default: return .notAnInteger
            }
            if !overflow {
                let (times, o1) = magnitude.multipliedReportingOverflow(by: radix)
                let (plus, o2) = times.addingReportingOverflow(digit)
                if o1 || o2 { overflow = true } else { magnitude = plus }
            }
            index = text.index(after: index)
        }
        if overflow { return .outOfRange }
        guard let value = IntegerValue(isNegative: negative, magnitude: magnitude) else { return .outOfRange }
        return .integer(value)
    }

    /// The outcome of `parse(_:)`.
    public enum ParseResult: Equatable, Sendable {
        case integer(IntegerValue)
        case notAnInteger
        case outOfRange
    }
}
