import Foundation
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineLogging
import TimelineEngineReachModel
import TimelineEngineRestoration
import TimelineEngineStore
import TimelineEngineSupport
import TimelineEngineSyncModel

/// Runs sync for an app, event-driven, inside `run()`, which its owner awaits (the façade's
/// `run()`, `engine sync watch`) until `shutdown()`:
///
/// - a change heard on the transport's change stream (a long-poll answer, a file landing in the
///   shared folder, iCloud's notification) is merged at once, and announced;
/// - a local change is published after `Sync.DebounceInterval`, unless another comes first
///   (scrolling does not flood the transport);
/// - `syncNow()` runs a round at once; after a failure the configured network policy decides
///   whether and when to retry;
/// - `pause()` (the app went to the background) stops listening and every timer; `resume()`
///   listens again, which pulls whatever came meanwhile.
///
/// Nothing runs before `run()` and nothing after it returns: no listening, no timer (a round
/// asked for with `syncNow()` runs at once all the same).
///
/// Rounds and merges run one at a time. It publishes the status and the remote positions the
/// app should act on, leaving out those within `Sync.SamePostDeadband` of where this device
/// already is (the same post, written within that many seconds): the deadband changes what the
/// screen does, never what the replicas hold. Every timer runs on the injected `clock`, so
/// tests run on virtual time, and retry jitter is injected too.
public actor SyncCoordinator {
    public nonisolated let device: String
    public nonisolated let components: SyncComponents
    private let store: TimelineStore
    private let settings: SyncSettings
    private let network: any NetworkPolicy
    private let clock: any Clock<Duration>
    private let now: @Sendable () -> Date
    private let jitter: @Sendable () -> Double
    private let outlets = Locked(Outlets())
    /// The debounce or retry timer, and whether it is still to fire.
    private var timer: Task<Void, Never>?
    private var timerArmed = false
    /// The change stream's consumer.
    private var listener: Task<Void, Never>?
    /// The last round or merge: the next waits for it.
    private var last: Task<Void, Never>?
    private var failures = 0
    private var running = false
    /// How many reads of the change stream were merged.
    private var merged = 0
    /// A round asked for before `run()`: it is scheduled when `run()` starts.
    private var scheduledBeforeRun: Double?
    private var paused = false
    private let shutdownLatch = Latch()
    /// True once `shutdown()` was called: `run()` returns, or returns at once.
    private var stopped: Bool { shutdownLatch.isOpen }

    /// The status and its listeners, read from any thread.
    private struct Outlets {
        var status: SyncStatus = .idle
        var statusContinuations: [UUID: AsyncStream<SyncStatus>.Continuation] = [:]
        var eventContinuations: [UUID: AsyncStream<RemotePositionEvent>.Continuation] = [:]
    }

    public init(
        store: TimelineStore, configuration: TimelineConfiguration, registry: StrategyRegistry = BuiltInStrategies.registry,
        device: String, clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = { Date() },
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) throws(PipelineError) {
        try self.init(
            store: store, components: SyncComponents(configuration: configuration, registry: registry), configuration: configuration,
            registry: registry, device: device, clock: clock, now: now, jitter: jitter)
    }

    /// A coordinator for components already built from `configuration`; it listens once its
    /// owner awaits `run()`.
    public init(
        store: TimelineStore, components: SyncComponents, configuration: TimelineConfiguration,
        registry: StrategyRegistry = BuiltInStrategies.registry, device: String, clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = { Date() },
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) throws(PipelineError) {
        self.store = store
        self.components = components
        settings = configuration.sync
        network = try NetworkPolicyBuilder(registry: registry, configuration: configuration).build()
        self.device = device
        self.clock = clock
        self.now = now
        self.jitter = jitter
    }

    deinit {
        let continuations = outlets.withLock { ($0.statusContinuations.values.map { $0 }, $0.eventContinuations.values.map { $0 }) }
        for continuation in continuations.0 { continuation.finish() }
        for continuation in continuations.1 { continuation.finish() }
    }

    /// The merge policy register values are read with.
    public nonisolated var policy: any MergePolicy { components.policy }

    /// The status now.
    public nonisolated var status: SyncStatus { outlets.withLock { $0.status } }

    /// Every status from now on, starting with the current one.
    public nonisolated var statusUpdates: AsyncStream<SyncStatus> {
        AsyncStream { continuation in
            let id = UUID()
            outlets.withLock {
                $0.statusContinuations[id] = continuation
                continuation.yield($0.status)
            }
            continuation.onTermination = { [outlets] _ in outlets.withLock { _ = $0.statusContinuations.removeValue(forKey: id) } }
        }
    }

    /// Remote positions to act on, from now on.
    public nonisolated var events: AsyncStream<RemotePositionEvent> {
        AsyncStream { continuation in
            let id = UUID()
            outlets.withLock { $0.eventContinuations[id] = continuation }
            continuation.onTermination = { [outlets] _ in outlets.withLock { _ = $0.eventContinuations.removeValue(forKey: id) } }
        }
    }

    /// Listens to the transport's change stream and runs the rounds that local changes and
    /// retries schedule, until `shutdown()` or until the task is cancelled; then stops listening
    /// and every timer, and returns once the round in flight has finished. A second call, or a
    /// call after `shutdown()`, returns at once.
    public func run() async {
        guard !running, !stopped else { return }
        running = true
        listen()
        if let seconds = scheduledBeforeRun {
            scheduledBeforeRun = nil
            schedule(after: seconds)
        }
        await shutdownLatch.wait()
        timer?.cancel()
        listener?.cancel()
        let (timer, listener) = (self.timer, self.listener)
        await timer?.value
        await listener?.value
        await last?.value
        running = false
    }

    /// Makes `run()` return: it stops listening and every timer; a round in flight finishes.
    /// Callable from any thread, before `run()` as well.
    public nonisolated func shutdown() {
        shutdownLatch.open()
    }

    /// The app went to the background: stop listening and every timer until `resume()`.
    public func pause() async {
        guard !paused, !stopped else { return }
        paused = true
        timer?.cancel()
        timerArmed = false
        listener?.cancel()
        listener = nil
        publish(.paused(pending: (try? await pending()) ?? 0))
    }

    /// The app is back: listen again (which pulls what came meanwhile), and publish what
    /// waits in the outbox.
    public func resume() async {
        guard paused, !stopped else { return }
        paused = false
        publish(.idle)
        listen()
        try? await publishWaitingWrites()
    }

    /// Whether `run()` is running.
    public var isRunning: Bool { running }

    /// Whether the coordinator is paused (the app is in the background).
    public var isPaused: Bool { paused }

    /// Whether `shutdown()` was called: it listens no longer, and no timer runs.
    public var isStopped: Bool { stopped }

    /// How many reads of the transport's change stream have been merged: the first is the read
    /// when listening starts (after `run()` or `resume()`), the others what the stream heard.
    public var mergedPulls: Int { merged }

    /// A local position was saved: a round follows after `Sync.DebounceInterval`, unless
    /// another change comes first. Callable from any thread; the coordinator takes the change
    /// soon after (`noteLocalChange()` returns once it has).
    public nonisolated func localChange() {
        Task { await self.noteLocalChange() }
    }

    /// `localChange()`, returning once the debounce interval has started again from now.
    public func noteLocalChange() {
        schedule(after: settings.debounceInterval)
    }

    /// Runs a round now, after any in flight, and returns what it did (or throws why it could not).
    @discardableResult
    public func syncNow() async throws -> SyncRound.Report {
        try await serially { try await self.round() }
    }

    // MARK: Work

    /// Runs `work` after the work in flight, one at a time.
    private func serially<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        let previous = last
        let task = Task { () async throws -> T in
            await previous?.value
            return try await work()
        }
        last = Task { _ = try? await task.value }
        return try await task.value
    }

    private var syncRound: SyncRound {
        SyncRound(
            store: store, components: components, device: device, gracePeriod: settings.tombstoneGracePeriod,
            maxClockOffset: settings.maxClockOffset)
    }

    private func pending() async throws -> Int {
        try await store.sync.pendingWrites().count
    }

    private func schedule(after seconds: Double) {
        guard !stopped, !paused else { return }
        guard running else {
            scheduledBeforeRun = min(scheduledBeforeRun ?? seconds, seconds)
            return
        }
        timer?.cancel()
        // The deadline is taken now, not when the timer's task first runs.
        let wait = clock.sleeper(until: max(0, seconds))
        timerArmed = true
        timer = Task {
            do {
                try Task.checkCancellation()
                try await wait()
            } catch {
                return
            }
            // Cancelled while its sleep ended (a later change moved the deadline, the clock
            // passed both at once): the timer that replaced it runs the round, not this one.
            guard !Task.isCancelled else { return }
            self.timerArmed = false
            _ = try? await self.syncNow()
        }
    }

    private func listen() {
        guard running, !stopped, !paused, listener == nil else { return }
        let (clock, network, jitter, device) = (self.clock, self.network, self.jitter, self.device)
        let watch = ChangeWatch(
            device: device,
            sleep: { seconds in try await clock.sleep(for: .seconds(max(0, seconds))) },
            // A stream never gives up: after the network policy's delays run out (or under
            // NoRetry), it reconnects after 0.5 s, doubling to at most 30 s.
            retryDelay: { attempt in
                let fallback = min(30, 0.5 * pow(2, Double(min(attempt, 16) - 1)))
                return max(0.05, network.retryDelay(after: .connection("sync"), attempt: attempt, jitter: jitter()) ?? fallback)
            },
            log: { [logger = store.loggers.sync] message in logger.info("\(message)", metadata: ["device": "\(device)"]) })
        let changes = components.transport.changes(watch)
        listener = Task {
            for await pull in changes {
                guard !Task.isCancelled else { break }
                _ = try? await self.serially { try await self.take(pull) }
            }
        }
    }

    /// Merges what the change stream brought, and announces it; publishes the outbox if it
    /// waits (the transport answered, so it may be reachable again).
    private func take(_ pull: SyncPull) async throws {
        let before = try await ownHeads()
        let report = try await syncRound.merge(pull, at: now())
        await announce(report, ownBefore: before)
        if !report.changed.isEmpty {
            store.loggers.sync.debug(
                "heard a change",
                metadata: [
                    "device": "\(device)", "moved": "\(report.changed.count)", "from": "\(pull.devices.joined(separator: ","))",
                ])
        }
        try await publishWaitingWrites()
        if case .offline = status { publish(.synced(at: now(), wrongClocks: [])) }
        merged += 1
    }

    /// Schedules a round now if the outbox holds writes and no timer is armed. Whether one is
    /// armed is read after the outbox, not before: a change noted during that read armed the
    /// debounce, which a round now would cut short.
    private func publishWaitingWrites() async throws {
        guard try await pending() > 0, !timerArmed else { return }
        schedule(after: 0)
    }

    private func ownHeads() async throws -> [RegisterKey: PositionRecord] {
        let (store, device) = (self.store, self.device)
        var own: [RegisterKey: PositionRecord] = [:]
        for record in try await store.sync.replicaState().records where record.device == device { own[record.key] = record }
        return own
    }

    /// One round.
    private func round() async throws -> SyncRound.Report {
        publish(.syncing)
        let date = now()
        let before = try await ownHeads()
        do {
            let report = try await syncRound.run(at: date)
            failures = 0
            publish(.synced(at: date, wrongClocks: report.wrongClocks.keys.sorted()))
            await announce(report, ownBefore: before)
            return report
        } catch let failure as SyncRound.Failure {
            failures += 1
            let fetchFailure: FetchFailure =
                failure.error.kind == .unreachable ? .connection(failure.description) : .invalidContent(failure.description)
            let delay = failures < network.maxAttempts ? network.retryDelay(after: fetchFailure, attempt: failures, jitter: jitter()) : nil
            if failure.error.kind == .unreachable {
                publish(.offline(pending: failure.pending))
            } else {
                publish(.error(message: failure.description, retryAt: delay.map { date.addingTimeInterval($0) }))
            }
            store.loggers.sync.warning(
                "sync round failed",
                metadata: [
                    "device": "\(device)", "error": "\(failure.description)", "pending": "\(failure.pending)",
                    "retry": "\(delay.map { "\($0)" } ?? "none")",
                ])
            if let delay { schedule(after: delay) }
            throw failure
        }
    }

    private func publish(_ status: SyncStatus) {
        let continuations = outlets.withLock { outlets -> [AsyncStream<SyncStatus>.Continuation] in
            outlets.status = status
            return Array(outlets.statusContinuations.values)
        }
        for continuation in continuations { continuation.yield(status) }
    }

    /// The events of a round: each register that moved to another device's position, unless
    /// this device was already on that post within the deadband.
    private func announce(_ report: SyncRound.Report, ownBefore: [RegisterKey: PositionRecord]) async {
        guard !report.changed.isEmpty else { return }
        let (store, keys) = (self.store, report.changed.map(\.key))
        var registers: [(key: RegisterKey, register: Register)] = []
        for key in keys {
            guard let register = try? await store.sync.register(of: key) else { continue }
            registers.append((key, register))
        }
        var events: [RemotePositionEvent] = []
        for (key, register) in registers {
            let resolution = policy.resolve(register)
            guard let winner = resolution.winner, let snapshot = winner.snapshot, winner.device != device else { continue }
            let mine = ownBefore[key]
            if let mine, mine.snapshot?.postId == snapshot.postId, abs(mine.savedAt.timeIntervalSince(winner.savedAt)) <= settings.samePostDeadband {
                continue
            }
            events.append(
                RemotePositionEvent(
                    account: key.account, timeline: key.timeline, postId: snapshot.postId, device: winner.device,
                    savedAt: winner.savedAt, action: mine == nil ? .move : .suggest, reason: resolution.reason))
        }
        guard !events.isEmpty else { return }
        let continuations = outlets.withLock { Array($0.eventContinuations.values) }
        for event in events {
            for continuation in continuations { continuation.yield(event) }
        }
    }
}

extension Clock where Duration == Swift.Duration {
    /// A sleep until `seconds` after now, now being when this is called, not when the sleep
    /// starts.
    fileprivate func sleeper(until seconds: Double) -> @Sendable () async throws -> Void {
        let deadline = now.advanced(by: .seconds(seconds))
        return { try await self.sleep(until: deadline, tolerance: nil) }
    }
}
