/// A write's causal context: for each device, the highest sequence number of that device's
/// writes to the register that the writer had merged when it wrote (a version vector). A user
/// has a handful of devices, so it is a short array kept sorted by device id (by Unicode
/// scalars), and comparing or looking up is a linear scan.
///
/// A device absent from the vector counts as 0: nothing of it was seen.
public struct VersionVector: Sendable, Hashable, CustomStringConvertible {
    /// (device, sequence) pairs, sorted by device, each device once, no zero sequences.
    public private(set) var entries: [(device: String, sequence: UInt64)]

    public static let empty = VersionVector()

    public init() {
        entries = []
    }

    /// A vector of `pairs`; a device named twice keeps its highest sequence, and zeros are dropped.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, UInt64) {
        entries = []
        for (device, sequence) in pairs { raise(device, to: sequence) }
    }

    /// The highest sequence of `device` seen; 0 when none.
    public subscript(device: String) -> UInt64 {
        for entry in entries where entry.device == device { return entry.sequence }
        return 0
    }

    /// Whether the vector has seen `device`'s write number `sequence`.
    public func includes(device: String, sequence: UInt64) -> Bool {
        self[device] >= sequence
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// Raises `device`'s entry to `sequence` if it is lower.
    public mutating func raise(_ device: String, to sequence: UInt64) {
        guard sequence > 0 else { return }
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if Self.precedes(entries[middle].device, device) { low = middle + 1 } else { high = middle }
        }
        if low < entries.count, entries[low].device == device {
            if entries[low].sequence < sequence { entries[low].sequence = sequence }
        } else {
            entries.insert((device, sequence), at: low)
        }
    }

    /// The per-device maximum of both.
    public mutating func formUnion(_ other: VersionVector) {
        for entry in other.entries { raise(entry.device, to: entry.sequence) }
    }

    /// The vector without `device`'s entry.
    public func removing(_ device: String) -> VersionVector {
        var copy = self
        copy.entries.removeAll { $0.device == device }
        return copy
    }

    /// The order of device ids: by Unicode scalars, the same on every platform.
    public static func precedes(_ a: String, _ b: String) -> Bool {
        a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
    }

    public static func == (lhs: VersionVector, rhs: VersionVector) -> Bool {
        lhs.entries.elementsEqual(rhs.entries) { $0.device == $1.device && $0.sequence == $1.sequence }
    }

    public func hash(into hasher: inout Hasher) {
        for entry in entries {
            hasher.combine(entry.device)
            hasher.combine(entry.sequence)
        }
    }

    /// `{laptop: 3, phone: 12}`.
    public var description: String {
        "{" + entries.map { "\($0.device): \($0.sequence)" }.joined(separator: ", ") + "}"
    }
}
