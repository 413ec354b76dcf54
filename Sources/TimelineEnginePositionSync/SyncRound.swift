import Foundation
import Logging
import TimelineEngineConfiguration
import TimelineEngineLogging
import TimelineEngineStore
import TimelineEngineSupport
import TimelineEngineSyncModel

/// One pull → merge → push round between a store and a transport.
///
/// 1. Pull what the other devices published. Unreadable sources are warnings.
/// 2. Forget every head stamped before the grace period (`Sync.TombstoneGracePeriod`),
///    positions and tombstones alike, and ignore pulled writes from before it: their
///    tombstones may be gone, so they must not bring back what was deleted. The period ends at
///    the newest write heard from another device when this device's clock is ahead of it
///    (`SyncStateStore.graceCutoff`). A device back after longer than that starts again from
///    what the others hold; it is reported as `resynced`.
/// 3. Merge the rest into the store's heads, in one transaction; the clock moves past every
///    remote write but one more than `Sync.MaxClockOffset` ahead (a device with a wrong
///    clock, reported).
/// 4. Publish this device's heads, then remove from the outbox the writes that were in it
///    before the push: a crash anywhere leaves them there, to be pushed again (merging is
///    idempotent, so a second delivery changes nothing).
///
/// The store and the transport are asynchronous, so a round blocks no thread of the pool.
public struct SyncRound: Sendable {
    /// What a round did.
    public struct Report: Sendable, Equatable {
        /// Registers whose value changed (another write won), with the post each now points at
        /// (nil: forgotten).
        public var changed: [(key: RegisterKey, postId: String?)]
        public var pulled: Int
        public var pushed: Int
        public var acknowledged: Int
        public var warnings: [String]
        public var devices: [String]
        /// True when the device came back after the grace period and started again.
        public var resynced: Bool
        /// Devices whose writes were more than the maximum clock offset ahead, and by how many
        /// seconds.
        public var wrongClocks: [String: Double]

        public init(
            changed: [(key: RegisterKey, postId: String?)] = [], pulled: Int = 0, pushed: Int = 0, acknowledged: Int = 0,
            warnings: [String] = [], devices: [String] = [], resynced: Bool = false, wrongClocks: [String: Double] = [:]
        ) {
            self.changed = changed
            self.pulled = pulled
            self.pushed = pushed
            self.acknowledged = acknowledged
            self.warnings = warnings
            self.devices = devices
            self.resynced = resynced
            self.wrongClocks = wrongClocks
        }

        public static func == (lhs: Report, rhs: Report) -> Bool {
            lhs.changed.map(\.key) == rhs.changed.map(\.key) && lhs.changed.map(\.postId) == rhs.changed.map(\.postId)
                && lhs.pulled == rhs.pulled && lhs.pushed == rhs.pushed && lhs.acknowledged == rhs.acknowledged
                && lhs.warnings == rhs.warnings && lhs.devices == rhs.devices && lhs.resynced == rhs.resynced && lhs.wrongClocks == rhs.wrongClocks
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
    /// Seconds a remote stamp may be ahead of this device's clock and still move it.
    public let maxClockOffset: TimeInterval

    public init(
        store: TimelineStore, components: SyncComponents, device: String, gracePeriod: TimeInterval,
        maxClockOffset: TimeInterval = SyncSettings().maxClockOffset
    ) {
        self.store = store
        self.components = components
        self.device = device
        self.gracePeriod = gracePeriod
        self.maxClockOffset = maxClockOffset
    }

    public func run(at date: Date = Date()) async throws -> Report {
        let pull: SyncPull
        do {
            pull = try await components.transport.pull(device: device)
        } catch {
            throw try await failure(error, at: date)
        }
        var report = try await merge(pull, at: date)
        let pending = try await store.sync.pendingWrites()
        let state = try await store.sync.replicaState()
        let publication = SyncPublication(device: device, state: state, policy: components.policy)
        do {
            try await components.transport.push(publication)
        } catch {
            throw try await failure(error, at: date)
        }
        let devices = pull.devices
        try await store.sync.acknowledge(pending.map(\.id), devices: devices, at: date)
        report.pushed = publication.own.count
        report.acknowledged = pending.count
        store.loggers.sync.debug(
            "sync round",
            metadata: [
                "device": "\(device)", "heard": "\(devices.joined(separator: ","))", "pulled": "\(report.pulled)",
                "moved": "\(report.changed.count)", "pushed": "\(report.pushed)", "sent": "\(report.acknowledged)",
            ])
        return report
    }

    /// Merges what a pull (or a change stream) brought, and reports the registers whose value
    /// changed. First the grace period's cutoff (`SyncStateStore.graceCutoff`) forgets the heads
    /// stamped before it; the pulled writes stamped before it are left out. Nothing is
    /// published.
    public func merge(_ pull: SyncPull, at date: Date = Date()) async throws -> Report {
        let policy = components.policy
        typealias Outcome = (changed: [(key: RegisterKey, postId: String?)], wrongClocks: [String: Double], resynced: Bool)
        let (cutoff, resynced) = try await store.sync.applyGracePeriod(at: date, gracePeriod: gracePeriod, device: device, heard: pull.records)
        var fresh = pull.records
        if let cutoff {
            let oldest = HybridTimestamp(milliseconds: UInt64(max(0, cutoff.timeIntervalSince1970 * 1000)), counter: 0)
            fresh.removeAll { $0.stamp.time < oldest }
        }
        var before: [RegisterKey: PositionRecord?] = [:]
        for key in Set(fresh.map(\.key)) { before[key] = policy.value(of: try await store.sync.register(of: key)) }
        let merge = try await store.sync.applyRemote(fresh, at: date, device: device, maxClockOffset: maxClockOffset)
        var moved: [(key: RegisterKey, postId: String?)] = []
        for key in merge.changed {
            let after = policy.value(of: try await store.sync.register(of: key))
            let previous = before[key] ?? nil
            if after?.stamp != previous?.stamp { moved.append((key, after?.snapshot?.postId)) }
        }
        let outcome: Outcome = (moved, merge.wrongClocks.mapValues { Double($0) / 1000 }, resynced)
        let logger = store.loggers.sync
        for (key, postId) in outcome.changed {
            logger.debug(
                "register moved",
                metadata: [
                    "device": "\(device)", "account": "\(key.account)", "timeline": "\(key.timeline)", "post": "\(postId ?? "-")",
                    "policy": "\(components.policy.name)",
                ])
        }
        for (wrong, ahead) in outcome.wrongClocks {
            logger.notice("clock ahead", metadata: ["device": "\(device)", "from": "\(wrong)", "seconds": "\(ahead)"])
        }
        if outcome.resynced { logger.notice("resynced after the grace period", metadata: ["device": "\(device)"]) }
        var warnings = pull.warnings
        for (key, count) in merge.setAside.sorted(by: { $0.key < $1.key }) {
            warnings.append(Self.setAsideWarning(key: key, count: count))
        }
        return Report(
            changed: outcome.changed, pulled: pull.records.count, warnings: warnings, devices: pull.devices, resynced: outcome.resynced,
            wrongClocks: outcome.wrongClocks)
    }

    /// What a round says of the heads of other devices a full register set aside.
    static func setAsideWarning(key: RegisterKey, count: Int) -> String {
        """
        register \(key.account)/\(key.timeline) holds the heads of \
        \(SyncLimits.maximumDevicesPerRegister) devices, the most a register keeps: \(count) head\(count == 1 ? "" : "s") of other \
        devices set aside (not kept, not passed on); a reader has a handful of devices: whoever wrote them can write your \
        registers (a sync token, a shared folder)
        """
    }

    /// Notes a failed round in the store and describes it.
    private func failure(_ error: SyncTransportError, at date: Date) async throws -> Failure {
        try await store.sync.recordSyncFailure(error.description, at: date)
        let pending = try await store.sync.pendingWrites().count
        return Failure(error: error, pending: pending)
    }
}
