import Foundation
import TimelineCore

/// What one device knows: every register's heads (each device's latest write). Applying a
/// write is a merge, so applying any set of writes in any order, any number of times, gives
/// the same state; a merge policy then reads each register's value from its heads.
public struct ReplicaState: Sendable, Equatable {
    public var registers: [RegisterKey: Register] = [:]

    public init() {}

    /// Merges `record`; true when its register's heads changed.
    @discardableResult
    public mutating func apply(_ record: PositionRecord) -> Bool {
        registers[record.key, default: Register()].insert(record)
    }

    /// Merges many writes; how many of them changed a register's heads.
    @discardableResult
    public mutating func apply<S: Sequence>(contentsOf records: S) -> Int where S.Element == PositionRecord {
        var changed = 0
        for record in records where apply(record) { changed += 1 }
        return changed
    }

    /// True when applying `record` would change anything.
    public func wouldChange(_ record: PositionRecord) -> Bool {
        registers[record.key]?.wouldChange(record) ?? true
    }

    /// `key`'s register (empty when none).
    public subscript(key: RegisterKey) -> Register {
        registers[key] ?? Register()
    }

    /// `key`'s value under `policy`.
    public func value(of key: RegisterKey, policy: any MergePolicy) -> PositionRecord? {
        registers[key].flatMap { policy.value(of: $0) }
    }

    /// Each device's latest write to `key`, by device id.
    public func heads(of key: RegisterKey) -> [PositionRecord] {
        registers[key]?.heads ?? []
    }

    /// Every head, by register and device: what a device publishes.
    public var records: [PositionRecord] {
        registers.keys.sorted().flatMap { registers[$0]!.heads }
    }

    /// How many heads the state holds.
    public var headCount: Int {
        registers.values.reduce(0) { $0 + $1.heads.count }
    }

    /// The latest timestamp in the state: what a restarted clock must not go below.
    public var latestTime: HybridTimestamp {
        registers.values.lazy.flatMap(\.heads).map(\.stamp.time).max() ?? .zero
    }
}
