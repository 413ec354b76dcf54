import Foundation
import TimelineEngineCore

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

    /// `device` sent its heads again (a delivery from it): each of its heads that was already
    /// here is reported anew (`Register.report(_:)`), for the rules where the last report wins.
    public mutating func report(from device: String) {
        for key in registers.keys where registers[key]?.head(of: device) != nil { registers[key]?.report(device) }
    }

    /// Merges many writes; how many of them changed a register's heads.
    @discardableResult
    public mutating func apply<S: Sequence>(contentsOf records: S) -> Int where S.Element == PositionRecord {
        var changed = 0
        for record in records where apply(record) { changed += 1 }
        return changed
    }

    /// Takes in writes that `device` heard from the others, as every replica does (a replayed
    /// session, the tests' models; the store does the same in SQL): each moves the clock (unless
    /// more than `maxClockOffset` ms ahead of `wall`, the local wall clock) and is merged; each
    /// that changed a register says how far its writer's clock is ahead at least
    /// (`ClockEstimates.observe`); a head of a device beyond the `SyncLimits.maximumDevicesPerRegister`
    /// a register keeps is set aside. When that taught `device` more of the others' clocks, its own
    /// live heads in the changed registers are published again with the new bounds
    /// (`Register.clocksRepublished`). Returns the registers whose heads changed and the heads
    /// published again.
    @discardableResult
    public mutating func receive<S: Sequence>(
        _ records: S, on device: String, clock: inout HybridClock, estimates: inout ClockEstimates,
        wall: UInt64, maxClockOffset: UInt64?
    )
        -> (changed: Set<RegisterKey>, republished: [PositionRecord]) where S.Element == PositionRecord
    {
        let before = estimates
        var changed = Set<RegisterKey>()
        for record in records {
            // A head of one more device than a register keeps is set aside, as the store does,
            // unless its writer heard of this device and a stranger's head can make room.
            if record.device != device, let register = registers[record.key], register.head(of: record.device) == nil,
                register.heads.count >= SyncLimits.maximumDevicesPerRegister
            {
                guard SyncLimits.heardOf(device, record), let stranger = SyncLimits.stranger(in: register, to: device) else { continue }
                registers[record.key]?.removeAll { $0.device == stranger.device }
            }
            _ = clock.observe(record.stamp.time, wall: wall, maxOffset: maxClockOffset)
            guard apply(record) else { continue }
            changed.insert(record.key)
            if record.device != device { estimates.observe(device: record.device, stamp: record.stamp.time, wall: wall) }
        }
        guard estimates != before else { return (changed, []) }
        var republished: [PositionRecord] = []
        for key in changed.sorted() {
            guard let head = registers[key]?.clocksRepublished(of: device, learned: estimates.offsets) else { continue }
            apply(head)
            republished.append(head)
        }
        return (changed, republished)
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

    /// Every head, register by register, each register's in the order its writes arrived here
    /// (`Register.headsInArrivalOrder`): what a delivery from this replica hands over.
    public var recordsInArrivalOrder: [PositionRecord] {
        registers.keys.sorted().flatMap { registers[$0]!.headsInArrivalOrder }
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
