/// A byte string whose lexicographic order is a merge policy's order, so that a database can
/// keep a register's winner with one conditional upsert (`… WHERE excluded.key > table.key`):
/// SQLite compares BLOBs and PostgreSQL compares `bytea` byte by byte, as this does.
///
/// Each part is written so that concatenation keeps the order: integers big-endian, doubles
/// with their sign folded so that the bytes sort as the numbers do, and strings as UTF-8 (whose
/// byte order is Unicode scalar order) with `00` escaped as `00 FF` and ended by `00 00`, so that
/// no string's bytes are a prefix of another's.
public struct OrderKey: Sendable, Hashable, Comparable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    public static func < (lhs: OrderKey, rhs: OrderKey) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    public mutating func append(_ value: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    public mutating func append(_ value: UInt8) {
        bytes.append(value)
    }

    /// A double, ordered as numbers are (-0 as 0).
    public mutating func append(_ value: Double) {
        let bits = (value == 0 ? 0 : value).bitPattern
        append(bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63))
    }

    public mutating func append(_ text: String) {
        for byte in text.utf8 {
            bytes.append(byte)
            if byte == 0 { bytes.append(0xFF) }
        }
        bytes += [0, 0]
    }

    public mutating func append(_ stamp: RegisterStamp) {
        append(stamp.time.rawValue)
        append(stamp.device)
    }

    /// Appends `other` with every byte complemented: its order reversed (`other`'s parts must
    /// be prefix-free, as every `append` makes them).
    public mutating func appendReversed(_ other: OrderKey) {
        bytes += other.bytes.map { ~$0 }
    }
}

extension RegisterStamp {
    /// The stamp's order as bytes: what a device position, or LastWriterWins, compares.
    public var orderKey: OrderKey {
        var key = OrderKey()
        key.append(self)
        return key
    }
}
