import Foundation
import TimelineCore

/// What one device knows: each register's winning write, and each device's own latest write
/// per register (for "Continue from iPad"). Applying a write is a merge, so applying any set of
/// writes in any order, any number of times, gives the same state.
public struct ReplicaState: Sendable, Equatable {
    public var registers: [RegisterKey: PositionRecord] = [:]
    /// Per register, per writing device: that device's latest write, by stamp. (One small table
    /// per register: a merge then never rehashes a table of every device's writes.)
    public var devicePositions: [RegisterKey: [String: PositionRecord]] = [:]

    public init() {}

    /// Each device's latest write to `key`, by device id.
    public func devicePositions(of key: RegisterKey) -> [PositionRecord] {
        (devicePositions[key] ?? [:]).values.sorted { $0.device.unicodeScalars.lexicographicallyPrecedes($1.device.unicodeScalars) }
    }

    /// Merges `record`; true when the register's value changed.
    @discardableResult
    public mutating func apply(_ record: PositionRecord, policy: any MergePolicy) -> Bool {
        // In place, one lookup each: no copy of the register's per-device table.
        devicePositions[record.key, default: [:]].keepNewer(record)
        guard let index = registers.index(forKey: record.key) else {
            registers[record.key] = record
            return true
        }
        let current = registers.values[index]
        guard current.stamp != record.stamp, policy.precedes(current, record) else { return false }
        registers.values[index] = record
        return true
    }

    /// Merges many writes; how many registers changed.
    @discardableResult
    public mutating func apply(contentsOf records: [PositionRecord], policy: any MergePolicy) -> Int {
        // Room is made only in an empty state: growing a full table rehashes all of it.
        if registers.isEmpty { registers.reserveCapacity(records.count) }
        if devicePositions.isEmpty { devicePositions.reserveCapacity(records.count) }
        var changed = 0
        for record in records where apply(record, policy: policy) { changed += 1 }
        return changed
    }

    /// True when applying `record` would change anything: a new winner, or a newer write of its
    /// device.
    public func wouldChange(_ record: PositionRecord, policy: any MergePolicy) -> Bool {
        if (devicePositions[record.key]?[record.device]).map({ $0.stamp < record.stamp }) ?? true { return true }
        guard let current = registers[record.key] else { return true }
        return current.stamp != record.stamp && policy.precedes(current, record)
    }

    /// Every write this state holds (the winners and the per-device positions), each once, in a
    /// stable order: what a device publishes.
    public var records: [PositionRecord] {
        var seen = Set<RegisterStamp>()
        var result: [PositionRecord] = []
        for key in Set(registers.keys).union(devicePositions.keys).sorted() {
            var candidates = (devicePositions[key] ?? [:]).values.sorted { $0.stamp < $1.stamp }
            if let winner = registers[key] { candidates.append(winner) }
            for record in candidates where seen.insert(record.stamp).inserted { result.append(record) }
        }
        return result
    }

    /// The latest reset anyone has written to `key`, as far as this state knows: a new local
    /// write carries it as its epoch.
    public func epoch(of key: RegisterKey) -> RegisterStamp {
        var latest = registers[key]?.epoch ?? .zero
        for record in (devicePositions[key] ?? [:]).values where record.epoch > latest { latest = record.epoch }
        return latest
    }

    /// The latest timestamp in the state: what a restarted clock must not go below.
    public var latestTime: HybridTimestamp {
        records.map(\.stamp.time).max() ?? .zero
    }
}

extension Dictionary where Key == String, Value == PositionRecord {
    /// Keeps `record` as its device's write unless one with a later stamp is there.
    mutating func keepNewer(_ record: PositionRecord) {
        if let index = index(forKey: record.device) {
            if values[index].stamp < record.stamp { values[index] = record }
        } else {
            self[record.device] = record
        }
    }
}
