import Foundation
import SyncModel
import TimelineStore

/// One pull → merge → push round between a store and a transport.
///
/// 1. Forget every write stamped before the grace period (`Sync.TombstoneGracePeriod`):
///    positions and tombstones alike. A device back after longer than that starts again from
///    what the others hold; it is reported as `resynced`.
/// 2. Pull what the other devices published, and ignore writes from before the grace period:
///    their tombstones may be gone, so they must not bring back what was deleted. Unreadable
///    sources are warnings.
/// 3. Merge the rest into the store, in one transaction; the clock moves past every remote write.
/// 4. Push this device's whole state, then remove from the outbox the writes that were in it
///    before the push: a crash anywhere leaves them there, to be pushed again (merging is
///    idempotent, so a second delivery changes nothing).
public struct SyncRound: Sendable {
    /// What a round did.
    public struct Report: Sendable, Equatable {
        /// Registers whose value changed, with the post each now points at (nil: forgotten).
        public var changed: [(key: RegisterKey, postId: String?)]
        public var pulled: Int
        public var pushed: Int
        public var acknowledged: Int
        public var warnings: [String]
        public var devices: [String]
        /// True when the device came back after the grace period and started again.
        public var resynced: Bool

        public static func == (lhs: Report, rhs: Report) -> Bool {
            lhs.changed.map(\.key) == rhs.changed.map(\.key) && lhs.changed.map(\.postId) == rhs.changed.map(\.postId)
                && lhs.pulled == rhs.pulled && lhs.pushed == rhs.pushed && lhs.acknowledged == rhs.acknowledged
                && lhs.warnings == rhs.warnings && lhs.devices == rhs.devices && lhs.resynced == rhs.resynced
        }
    }

    /// A round that could not finish: what failed, and how many writes still wait in the outbox.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public let error: SyncTransportError
        public let pending: Int
        public var description: String { error.description }
    }

    public let store: TimelineStore
    public let components: SyncComponents
    public let device: String
    public let gracePeriod: TimeInterval

    public init(store: TimelineStore, components: SyncComponents, device: String, gracePeriod: TimeInterval) {
        self.store = store
        self.components = components
        self.device = device
        self.gracePeriod = gracePeriod
    }

    public func run(at date: Date = Date()) throws -> Report {
        let cutoff = date.addingTimeInterval(-gracePeriod)
        let resynced = try store.syncRecord().lastSyncAt.map { $0 < cutoff } ?? false
        try store.purgeSyncState(before: cutoff)
        let pull: SyncPull
        do {
            pull = try components.transport.pull(device: device)
        } catch {
            try store.recordSyncFailure(error.description, at: date)
            throw Failure(error: error, pending: try store.pendingWrites().count)
        }
        let oldest = HybridTimestamp(milliseconds: UInt64(max(0, cutoff.timeIntervalSince1970 * 1000)), counter: 0)
        let (changed, _) = try store.applyRemote(pull.records.filter { $0.stamp.time >= oldest }, policy: components.policy, at: date)
        let pending = try store.pendingWrites()
        let state = try store.replicaState()
        do {
            try components.transport.push(state: state, device: device)
        } catch {
            try store.recordSyncFailure(error.description, at: date)
            throw Failure(error: error, pending: pending.count)
        }
        try store.acknowledge(pending.map(\.id), devices: pull.devices, at: date)
        let moved = changed.map { ($0, state.registers[$0]?.snapshot?.postId) }
        return Report(changed: moved, pulled: pull.records.count, pushed: state.records.count, acknowledged: pending.count,
                      warnings: pull.warnings, devices: pull.devices, resynced: resynced)
    }
}
