import TimelineEngineValueTree

/// Equality as JSON Schema defines it for `enum`, `const` and `uniqueItems`: numbers are equal
/// when their mathematical values are (`1 == 1.0`), objects regardless of member order, arrays
/// element by element; `false` is not `0`.
enum JSONEquality {
    static func equal(_ lhs: Value, _ rhs: Value) -> Bool {
        switch (lhs.content, rhs.content) {
        case (.integer(let a), .integer(let b)): return a == b
        case (.integer, .real), (.real, .integer), (.real, .real):
            return NumberComparison.compare(lhs, rhs) == .orderedSame
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1) }
        case (.dictionary(let a), .dictionary(let b)):
            guard a.count == b.count else { return false }
            for (key, member) in a {
                guard let other = b[key], equal(member.value, other.value) else { return false }
            }
            return true
        default:
            return lhs == rhs
        }
    }
}

enum Ordering {
    case orderedAscending, orderedSame, orderedDescending
}

/// Compares numeric values exactly where both are integers, and as doubles otherwise; an
/// integer that a double cannot hold exactly is compared through its exact value.
enum NumberComparison {
    static func compare(_ lhs: Value, _ rhs: Value) -> Ordering? {
        switch (lhs.content, rhs.content) {
        case (.integer(let a), .integer(let b)):
            return a < b ? .orderedAscending : a == b ? .orderedSame : .orderedDescending
        case (.integer(let a), .real(let b)):
            return compare(a, b)
        case (.real(let a), .integer(let b)):
            return invert(compare(b, a))
        case (.real(let a), .real(let b)):
            return a < b ? .orderedAscending : a == b ? .orderedSame : .orderedDescending
        default:
            return nil
        }
    }

    private static func invert(_ ordering: Ordering) -> Ordering {
        switch ordering {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    /// Exact comparison of an integer with a double.
    static func compare(_ integer: IntegerValue, _ real: Double) -> Ordering {
        if real.isNaN { return .orderedAscending }
        let approximate = integer.doubleValue
        if approximate < real { return .orderedAscending }
        if approximate > real { return .orderedDescending }
        // Equal as doubles: decide exactly when the double is integral and in range.
        guard real == real.rounded(), abs(real) < 1.9e19 else { return .orderedSame }
        let other: IntegerValue? =
            real < 0
            ? IntegerValue(isNegative: true, magnitude: UInt64(exactly: -real) ?? UInt64.max)
            : UInt64(exactly: real).map { IntegerValue($0) }
        guard let other else { return .orderedSame }
        return integer < other ? .orderedAscending : integer == other ? .orderedSame : .orderedDescending
    }
}
