import EngineConfiguration
import Foundation
import RestorationEngine
import StrategyKit
import SyncModel
import TimelineLogging
import TimelineStore

/// Runs sync rounds for an app: after each local change, debounced by `Sync.DebounceInterval`;
/// every poll interval of the transport; on `syncNow()`; and after a failure when the
/// configured network policy retries. It publishes the status and the remote positions the app
/// should act on, leaving out those within `Sync.SamePostDeadband` of where this device already
/// is (the same post, written within that many seconds): the deadband changes what the screen
/// does, never what the replicas hold.
public final class SyncCoordinator: @unchecked Sendable {
    public let device: String
    private let store: TimelineStore
    private let components: SyncComponents
    private let settings: SyncSettings
    private let network: any NetworkPolicy
    private let clock: @Sendable () -> Date
    private let queue = DispatchQueue(label: "timeline-engine.sync")
    private let lock = NSLock()
    private var currentStatus: SyncStatus = .idle
    private var statusContinuations: [UUID: AsyncStream<SyncStatus>.Continuation] = [:]
    private var eventContinuations: [UUID: AsyncStream<RemotePositionEvent>.Continuation] = [:]
    /// Bumped by each scheduling, so that a superseded timer does nothing.
    private var generation = 0
    private var failures = 0
    private var stopped = false

    public convenience init(store: TimelineStore, configuration: TimelineConfiguration, registry: StrategyRegistry = BuiltInStrategies.registry,
                            device: String, clock: @escaping @Sendable () -> Date = { Date() }) throws(PipelineError) {
        try self.init(store: store, components: SyncComponents(configuration: configuration, registry: registry), configuration: configuration,
                      registry: registry, device: device, clock: clock)
    }

    /// A coordinator for components already built from `configuration`.
    public init(store: TimelineStore, components: SyncComponents, configuration: TimelineConfiguration,
                registry: StrategyRegistry = BuiltInStrategies.registry, device: String,
                clock: @escaping @Sendable () -> Date = { Date() }) throws(PipelineError) {
        self.store = store
        self.components = components
        settings = configuration.sync
        network = try NetworkPolicyBuilder(registry: registry, configuration: configuration).build()
        self.device = device
        self.clock = clock
        schedulePoll()
    }

    deinit {
        for continuation in statusContinuations.values { continuation.finish() }
        for continuation in eventContinuations.values { continuation.finish() }
    }

    /// The merge policy local saves are merged with.
    public var policy: any MergePolicy { components.policy }

    /// The status now.
    public var status: SyncStatus { lock.withLock { currentStatus } }

    /// Every status from now on, starting with the current one.
    public var statusUpdates: AsyncStream<SyncStatus> {
        AsyncStream { continuation in
            let id = UUID()
            lock.withLock {
                statusContinuations[id] = continuation
                continuation.yield(currentStatus)
            }
            continuation.onTermination = { [weak self] _ in self?.lock.withLock { _ = self?.statusContinuations.removeValue(forKey: id) } }
        }
    }

    /// Remote positions to act on, from now on.
    public var events: AsyncStream<RemotePositionEvent> {
        AsyncStream { continuation in
            let id = UUID()
            lock.withLock { eventContinuations[id] = continuation }
            continuation.onTermination = { [weak self] _ in self?.lock.withLock { _ = self?.eventContinuations.removeValue(forKey: id) } }
        }
    }

    /// Stops every timer; a round in flight finishes.
    public func stop() {
        lock.withLock { stopped = true }
    }

    /// A local position was saved: a round follows after `Sync.DebounceInterval`, unless
    /// another change comes first (scrolling does not flood the transport).
    public func localChange() {
        schedule(after: settings.debounceInterval)
    }

    /// Runs a round now, and returns what it did (or throws why it could not).
    @discardableResult
    public func syncNow() throws -> SyncRound.Report {
        try queue.sync { try round() }
    }

    private func schedule(after seconds: Double) {
        let ticket: Int? = lock.withLock {
            guard !stopped else { return nil }
            generation += 1
            return generation
        }
        guard let ticket else { return }
        queue.asyncAfter(deadline: .now() + max(0, seconds)) { [weak self] in
            guard let self, self.lock.withLock({ !self.stopped && self.generation == ticket }) else { return }
            _ = try? self.round()
        }
    }

    private func schedulePoll() {
        guard let interval = components.transport.pollInterval else { return }
        queue.asyncAfter(deadline: .now() + interval) { [weak self] in
            guard let self, !self.lock.withLock({ self.stopped }) else { return }
            _ = try? self.round()
            self.schedulePoll()
        }
    }

    /// One round, on the queue.
    private func round() throws -> SyncRound.Report {
        publish(.syncing)
        let now = clock()
        let before = try store.replicaState()
        do {
            let report = try SyncRound(store: store, components: components, device: device, gracePeriod: settings.tombstoneGracePeriod).run(at: now)
            lock.withLock { failures = 0 }
            publish(.synced(at: now))
            announce(report, before: before)
            LogCategory.sync.logger.debug("synced \(device): \(report.changed.count) moved, \(report.acknowledged) sent")
            return report
        } catch let failure as SyncRound.Failure {
            let attempt = lock.withLock { () -> Int in
                failures += 1
                return failures
            }
            let fetchFailure: FetchFailure = failure.error.kind == .unreachable ? .connection(failure.description) : .invalidContent(failure.description)
            let delay = attempt < network.maxAttempts ? network.retryDelay(after: fetchFailure, attempt: attempt, jitter: Double.random(in: 0..<1)) : nil
            if failure.error.kind == .unreachable {
                publish(.offline(pending: failure.pending))
            } else {
                publish(.error(message: failure.description, retryAt: delay.map { now.addingTimeInterval($0) }))
            }
            LogCategory.sync.logger.warning("sync \(device): \(failure.description)")
            if let delay { schedule(after: delay) }
            throw failure
        }
    }

    private func publish(_ status: SyncStatus) {
        let continuations = lock.withLock { () -> [AsyncStream<SyncStatus>.Continuation] in
            currentStatus = status
            return Array(statusContinuations.values)
        }
        for continuation in continuations { continuation.yield(status) }
    }

    /// The events of a round: each register that moved to another device's position, unless
    /// this device was already on that post within the deadband.
    private func announce(_ report: SyncRound.Report, before: ReplicaState) {
        let state = (try? store.replicaState()) ?? before
        var events: [RemotePositionEvent] = []
        for (key, _) in report.changed {
            guard let winner = state.registers[key], let snapshot = winner.snapshot, winner.device != device else { continue }
            let mine = before.devicePositions[key]?[device]
            if let mine, mine.snapshot?.postId == snapshot.postId,
               abs(mine.savedAt.timeIntervalSince(winner.savedAt)) <= settings.samePostDeadband {
                continue
            }
            events.append(RemotePositionEvent(account: key.account, timeline: key.timeline, postId: snapshot.postId, device: winner.device,
                                              savedAt: winner.savedAt, action: mine == nil ? .move : .suggest))
        }
        guard !events.isEmpty else { return }
        let continuations = lock.withLock { Array(eventContinuations.values) }
        for event in events {
            for continuation in continuations { continuation.yield(event) }
        }
    }
}
