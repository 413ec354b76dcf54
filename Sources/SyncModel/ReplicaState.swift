import Foundation
import TimelineCore

/// What one device knows: each register's winning write, and each device's own latest write
/// per register (for "Continue from iPad"). Applying a write is a merge, so applying any set of
/// writes in any order, any number of times, gives the same state.
public struct ReplicaState: Sendable, Equatable {
    public var registers: [RegisterKey: PositionRecord] = [:]
    /// Per register, per writing device: that device's latest write, by stamp.
    public var devicePositions: [RegisterKey: [String: PositionRecord]] = [:]

    public init() {}

    /// Merges `record`; true when the register's value changed.
    @discardableResult
    public mutating func apply(_ record: PositionRecord, policy: any MergePolicy) -> Bool {
        var byDevice = devicePositions[record.key] ?? [:]
        if let known = byDevice[record.device], known.stamp >= record.stamp {
            // Already seen, or older than what this device wrote since.
        } else {
            byDevice[record.device] = record
            devicePositions[record.key] = byDevice
        }
        guard let current = registers[record.key] else {
            registers[record.key] = record
            return true
        }
        let winner = policy.merge(current, record)
        guard winner != current else { return false }
        registers[record.key] = winner
        return true
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
