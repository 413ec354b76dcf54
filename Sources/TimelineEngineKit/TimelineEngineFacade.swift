import CoreMetrics
import Foundation
import TimelineEngineCacheModel
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineHTTPExchange
import TimelineEngineLoading
import TimelineEngineLogging
import TimelineEnginePositionSync
import TimelineEnginePositionTracking
import TimelineEngineRestoration
import TimelineEngineRestorationModel
import TimelineEngineStore
import TimelineEngineStrategyKit
import TimelineEngineSupport
import TimelineEngineSyncModel

#if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
import TimelineEngineURLSessionHTTP
#endif
#if ServiceLifecycle
import ServiceLifecycle
#endif

/// The engine an app holds: it observes scrolling and the app's lifecycle, keeps the position
/// history, and restores the reader's place with the configured pipeline and resume policy.
///
/// Its long-lived work runs inside `run()`, which the app awaits for as long as it uses the
/// engine (as a swift-service-lifecycle service runs): the writes of saved positions to the
/// store, in order and off the caller's thread; the settle timer; and sync's listening and
/// rounds. `shutdown()`, cancelling the task, or dropping the engine makes `run()` return once
/// what was saved is written.
///
/// Safe to call from any thread or task: observing scrolls and the lifecycle is synchronous and
/// touches memory only; what reads the store is asynchronous. `reload(configuration:)` swaps the
/// pipeline atomically, and a restore in flight finishes with the pipeline it started with. No
/// UIKit: the app passes offsets and timelines in, and applies the result itself.
public final class TimelineEngine: Sendable {
    /// What `restore(in:)` decided.
    public struct RestoreResult: Sendable {
        /// Where to scroll; nil only for an empty timeline.
        public var restoration: Restoration?
        /// How the app was closed before this return.
        public var close: ResumePolicy.Close
        /// True to restore without asking; false to offer `suggestions` ("Continue reading?").
        public var restoreSilently: Bool
        public var suggestions: [RestorationSuggestion]
        /// Every stage's verdict.
        public var trace: [StageVerdict]
        /// "N new above you": the posts above `restoration` that this device has not seen, a
        /// boost or a re-draft of a post seen, and the same content twice, counted once
        /// (`UnreadCount`); 0 without a restoration.
        public var unreadAbove = 0
    }

    /// What changes after creation, behind one lock.
    private struct State {
        var configuration: TimelineConfiguration
        var pipeline: Pipeline
        var tracker: PositionTracker
        var policy: ResumePolicy
        var storeError: StoreError?
        var resumeState = ResumeState()
        var coordinator: SyncCoordinator?
        /// This device's id in sync, once the store gave one.
        var device: String?
        /// True while a timer waits to make the tracker's trailing save.
        var settleTimerArmed = false
    }

    private let state: Locked<State>
    private let registry: StrategyRegistry
    private let logRouting: LogRouting
    private let clock: @Sendable () -> Date
    private let timers: any Clock<Duration>
    /// The keys sync seals positions with, when the app supplies them.
    private let syncKeyring: SyncKeyring?
    /// What each restore publishes through swift-metrics.
    private let restoreMetrics: RestoreMetrics
    private let store: TimelineStore?
    private let scope: StoreScope
    private let writer: PositionWriter
    private let lifecycle: EngineLifecycle
    /// `settle()` of this engine, for the settle timer, which must not keep it alive.
    private let settleHook = Locked<(@Sendable () -> Void)?>(nil)
    /// The last error the store reported; the engine keeps working in memory meanwhile.
    public var lastStoreError: StoreError? { state.withLock { $0.storeError } }

    private func report(_ error: StoreError) {
        state.withLock { $0.storeError = error }
    }

    /// Sync with the reader's other devices, when the configuration's transport is not `None`
    /// and there is a store to keep the outbox in. A reload that changes the `Sync` section
    /// replaces it: read it again after `reload`.
    public var sync: SyncCoordinator? { state.withLock { $0.coordinator } }

    /// Builds the engine from a configuration; throws when its pipeline cannot be built.
    ///
    /// With a `store`, saved positions are written to it as they are saved and the history is
    /// loaded from it, so that after a restart restoration starts from the persisted history,
    /// as session replay models a relaunch; without one, everything stays in memory.
    /// `logRouting` is the routing a reload sets from the new configuration's `Debug` and
    /// `Logging` sections, when it follows a configuration: the process's, which
    /// `TimelineLogging.bootstrap(configuration:)` sets up. `clock` stamps saves and restores;
    /// the settle timer and sync's timers run on `timers` (a test clock, in tests).
    /// `syncKeyring` seals every position sync sends end to end with the app's own keys (kept
    /// in the Keychain, say), in place of the recovery phrase `Sync.EncryptionPhraseVariable` names.
    /// Every restore is counted through swift-metrics (`RestoreMetrics`): by `metrics` when given,
    /// else by the backend the app bootstrapped, and nowhere when it bootstrapped none.
    public init(
        configuration: TimelineConfiguration = .defaults, registry: StrategyRegistry = BuiltInStrategies.registry,
        deviceId: String? = nil, store: TimelineStore? = nil, scope: StoreScope = StoreScope(),
        clock: @escaping @Sendable () -> Date = { Date() }, timers: any Clock<Duration> = ContinuousClock(),
        logRouting: LogRouting = TimelineLogging.routing, syncKeyring: SyncKeyring? = nil, metrics: (any MetricsFactory)? = nil
    ) async throws(PipelineError) {
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        // Apple platforms: the platform's URLSession, unless the app bootstrapped a client.
        HTTPExchanges.bootstrapIfNeeded(URLSessionExchange())
        #endif
        self.registry = registry
        self.logRouting = logRouting
        self.clock = clock
        self.timers = timers
        self.syncKeyring = syncKeyring
        restoreMetrics = RestoreMetrics(factory: metrics)
        self.store = store
        self.scope = scope
        let pipeline = try PipelineBuilder(registry: registry, configuration: configuration).build()
        let sync = try await Self.makeCoordinator(
            configuration, registry: registry, store: store, device: deviceId, clock: clock, timers: timers, keyring: syncKeyring)
        var tracker = PositionTracker(settings: PositionTracker.Settings(configuration: configuration), deviceId: sync.device)
        var storeError = sync.error
        if let store {
            do {
                tracker.restoreHistory(try await store.positions.history(scope: scope))
                tracker.readPosts = try await store.positions.readPosts(scope: scope)
            } catch {
                storeError = error
            }
        }
        let state = Locked(
            State(
                configuration: configuration, pipeline: pipeline, tracker: tracker, policy: ResumePolicy(configuration: configuration),
                storeError: storeError, coordinator: sync.coordinator, device: sync.device))
        self.state = state
        writer = PositionWriter { job in await Self.perform(job, store: store, scope: scope, state: state) }
        lifecycle = EngineLifecycle(writer: writer)
        if let coordinator = sync.coordinator { lifecycle.start(coordinator) }
        settleHook.withLock {
            $0 = { [weak self] in
                self?.state.withLock { $0.settleTimerArmed = false }
                self?.settle(now: false)
            }
        }
    }

    /// Dropping the engine shuts it down: its sync stops, and what was saved and not yet written
    /// is written in a task of its own, so nothing saved is lost. (While `run()` runs, its caller
    /// holds the engine.)
    deinit {
        lifecycle.shutdown()
        let writer = self.writer
        Task { await writer.drain() }
    }

    /// Runs the engine's long-lived work until `shutdown()`, until the task is cancelled, or
    /// until the engine is dropped: it writes saved positions to the store in order, makes the
    /// trailing save when scrolling rests, and runs sync (the configured coordinator, and each
    /// one a reload puts in its place). Returns once what was saved is written and sync's round
    /// in flight has finished. Call it once; a second call returns at once.
    ///
    /// Without `run()` the engine still restores and saves, and writes what was saved when it
    /// next restores or on `flush()`; sync then only runs on `syncNow()`.
    public func run() async {
        #if ServiceLifecycle
        // In a ServiceGroup, its graceful shutdown is a shutdown(); elsewhere nothing changes.
        await withGracefulShutdownHandler {
            await lifecycle.run(timers: timers, settle: settleHook)
        } onGracefulShutdown: { [lifecycle] in
            lifecycle.shutdown()
        }
        #else
        await lifecycle.run(timers: timers, settle: settleHook)
        #endif
    }

    /// Makes `run()` return once what was saved is written. Callable from any thread.
    public func shutdown() {
        lifecycle.shutdown()
    }

    /// Returns once every position saved so far is in the store (the app is about to be
    /// suspended, say).
    public func flush() async {
        await writer.drain()
    }

    /// Does one job of the writer: a save goes to the store (with sync, as a register write and an
    /// outbox entry, and a round follows after the debounce interval); a pause or a resume goes
    /// to sync.
    private static func perform(_ job: PositionWriter.Job, store: TimelineStore?, scope: StoreScope, state: Locked<State>) async {
        let sync = state.withLock { $0.coordinator }
        switch job {
        case .save(let snapshot, let visit, let date):
            guard let store else { return }
            do throws(StoreError) {
                if let sync {
                    try await store.sync.savePosition(snapshot, scope: scope, device: sync.device, visit: visit, at: date)
                    await sync.noteLocalChange()
                } else {
                    try await store.positions.saveSnapshot(snapshot, scope: scope)
                }
            } catch {
                state.withLock { $0.storeError = error }
            }
        case .markRead(let posts, let date):
            guard let store else { return }
            do throws(StoreError) {
                try await store.positions.markRead(posts: posts, scope: scope, at: date)
            } catch {
                state.withLock { $0.storeError = error }
            }
        case .pause: await sync?.pause()
        case .resume: await sync?.resume()
        }
    }

    /// A sync coordinator for `configuration`, or nil when it keeps positions on this device
    /// or there is no store; with the device id the store gave, and the store's error, if it
    /// failed (sync then stays off). Throws when the merge policy or transport cannot be built.
    private static func makeCoordinator(
        _ configuration: TimelineConfiguration, registry: StrategyRegistry, store: TimelineStore?,
        device: String?, clock: @escaping @Sendable () -> Date, timers: any Clock<Duration>, keyring: SyncKeyring?
    ) async throws(PipelineError)
        -> (coordinator: SyncCoordinator?, device: String?, error: StoreError?)
    {
        guard let store else { return (nil, device, nil) }
        do {
            let components = try SyncComponents(configuration: configuration, registry: registry, keyring: keyring)
            guard !components.isLocal else { return (nil, device, nil) }
            let id = try await store.sync.deviceId(override: device)
            return (
                try SyncCoordinator(
                    store: store, components: components, configuration: configuration, registry: registry, device: id, clock: timers,
                    now: clock),
                id, nil
            )
        } catch let error as StoreError {
            return (nil, device, error)
        } catch let error as PipelineError {
            throw error
        } catch {
            return (nil, device, StoreError(path: store.path, "\(error)"))
        }
    }

    /// Saved snapshots, each with its place in the visit. Called with the lock held.
    private func visits(of snapshots: [PositionSnapshot], in index: TimelineIndex?, tracker: PositionTracker) -> [(
        PositionSnapshot, PositionTracker.Visit?
    )] {
        snapshots.map { ($0, tracker.visit(of: $0, at: $0.savedAt ?? clock(), in: index)) }
    }

    /// Queues saved snapshots for the store, oldest first, and the posts read since the last
    /// save (`run()` writes them).
    private func persist(_ snapshots: [(PositionSnapshot, PositionTracker.Visit?)], reads: [Post] = []) {
        guard store != nil else { return }
        writer.enqueue(
            (reads.isEmpty ? [] : [.markRead(reads, at: clock())])
                + snapshots.map { snapshot, visit in
                    .save(snapshot, visit: visit.map { .init(seconds: $0.seconds, posts: $0.posts) }, at: snapshot.savedAt ?? clock())
                })
    }

    /// Arms the settle timer for the tracker's pending trailing save, unless it is armed. Called
    /// with the lock held.
    private func armSettleTimer(now: Date, _ state: inout State) {
        guard !state.settleTimerArmed, let due = state.tracker.pendingSaveDue else { return }
        state.settleTimerArmed = true
        lifecycle.settle(after: max(0.05, due.timeIntervalSince(now)))
    }

    /// Saves the last scroll position now: the app knows scrolling ended
    /// (`scrollViewDidEndDecelerating`). Without it the engine makes the same save itself, once
    /// scrolling has rested for `PositionPersistence.AutoSaveSettleDelay`. Nothing to save (no
    /// scroll since the last save) saves nothing.
    public func settle() {
        settle(now: true)
    }

    /// The trailing save: at once, or (the settle timer, a restore) only once scrolling has rested.
    private func settle(now settlingNow: Bool) {
        let now = clock()
        let (saved, reads) = state.withLock { state in
            let made = settlingNow ? state.tracker.settleNow(at: now) : state.tracker.settle(at: now)
            let saved = visits(of: made.map { [$0] } ?? [], in: nil, tracker: state.tracker)
            armSettleTimer(now: now, &state)
            return (saved, saved.isEmpty ? [] : state.tracker.takeUnsavedReads())
        }
        persist(saved, reads: reads)
    }

    /// Applies every section of `configuration` at once: the pipeline, the resume policy, the
    /// tracker's autosave and history settings, the cache and network policies, sync (merge
    /// policy, transport and intervals) and, when the app bootstrapped logging from its
    /// configuration (`TimelineLogging.bootstrap(configuration:)`), the log levels and sinks.
    ///
    /// Everything is built before anything changes: a configuration whose strategies cannot be
    /// built throws, and the engine goes on with the old one. A restore in flight finishes with
    /// the pipeline it started with; when the `Sync` section changed, the old coordinator stops
    /// listening and a round in flight finishes on the old transport, and the new coordinator
    /// publishes what waits in the outbox.
    public func reload(configuration: TimelineConfiguration) async throws(PipelineError) {
        let built = try PipelineBuilder(registry: registry, configuration: configuration).build()
        // Built only to be refused here rather than at the next maintenance or load.
        let cacheBuilder = CachePolicyBuilder(registry: registry, configuration: configuration)
        _ = try cacheBuilder.maintenancePolicies(memoryUse: nil)
        _ = try cacheBuilder.timelineCache()
        let networkBuilder = NetworkPolicyBuilder(registry: registry, configuration: configuration)
        _ = try networkBuilder.build()
        _ = try networkBuilder.reachStrategy()
        let (current, device) = state.withLock { ($0.configuration, $0.device) }
        let syncChanged = Self.syncSettingsDiffer(current, configuration)
        let sync =
            syncChanged
            ? try await Self.makeCoordinator(
                configuration, registry: registry, store: store, device: device, clock: clock, timers: timers, keyring: syncKeyring) : nil
        let replacement = sync?.coordinator
        if let error = sync?.error { report(error) }
        let retired: SyncCoordinator? = state.withLock { state in
            state.configuration = configuration
            state.pipeline = built
            state.tracker.settings = PositionTracker.Settings(configuration: configuration)
            state.policy = ResumePolicy(configuration: configuration)
            guard let sync else { return nil }
            state.device = sync.device
            let retired = state.coordinator
            state.coordinator = replacement
            return retired
        }
        if let retired {
            // The new coordinator takes over the old one's state: paused in the background.
            let paused = await retired.isPaused
            retired.shutdown()
            if paused { await replacement?.pause() }
        }
        if let replacement {
            lifecycle.start(replacement)
            await replacement.noteLocalChange()
        }
        TimelineLogging.reconfigure(configuration: configuration, registry: registry, routing: logRouting)
    }

    /// Reads the configuration at `url` and applies it as `reload(configuration:)` does, unless
    /// it has errors or its strategies cannot be built: then the engine goes on unchanged. The
    /// diagnostics say why (a strategy that cannot be built is one more error).
    public func reload(contentsOf url: URL) async -> ReloadOutcome {
        let loaded = ConfigurationLoader(schema: registry.configurationSchema).read(contentsOf: url, displayName: url.path)
        guard loaded.errors.isEmpty else { return ReloadOutcome(applied: false, diagnostics: loaded.diagnostics) }
        do {
            try await reload(configuration: loaded.configuration)
        } catch {
            let failure = ConfigurationDiagnostic(
                severity: .error, kind: .schema, file: url.path, location: nil, path: nil, message: error.description)
            return ReloadOutcome(applied: false, diagnostics: loaded.diagnostics + [failure])
        }
        return ReloadOutcome(applied: true, diagnostics: loaded.diagnostics)
    }

    /// What `reload(contentsOf:)` did.
    public struct ReloadOutcome: Sendable {
        /// True when the new configuration is in force.
        public var applied: Bool
        /// Its errors and warnings, each with its file, line and key path.
        public var diagnostics: [ConfigurationDiagnostic]
    }

    /// True when the sections sync is built from differ.
    private static func syncSettingsDiffer(_ old: TimelineConfiguration, _ new: TimelineConfiguration) -> Bool {
        old.sync != new.sync || old.positionPersistence.crossSessionSync != new.positionPersistence.crossSessionSync
            || old.positionPersistence.iCloudSyncEnabled != new.positionPersistence.iCloudSyncEnabled || old.network != new.network
    }

    /// The pipeline in use, in spec notation.
    public var pipelineSummary: String { state.withLock { $0.pipeline.summary } }

    /// A scroll: the content offset of the viewport's top, against the timeline shown.
    public func observeScroll(offset: Double, viewportHeight: Double, in index: TimelineIndex) {
        let now = clock()
        let (saved, reads) = state.withLock { state in
            let saved = visits(
                of: state.tracker.observeScroll(offset: offset, viewportHeight: viewportHeight, in: index, at: now), in: index,
                tracker: state.tracker)
            armSettleTimer(now: now, &state)
            // What was read goes to the store with the saves, not at every frame.
            return (saved, saved.isEmpty ? [] : state.tracker.takeUnsavedReads())
        }
        persist(saved, reads: reads)
    }

    /// A lifecycle event; `index` is the timeline shown, needed when going to the background.
    public func observe(_ event: PositionTracker.Lifecycle, in index: TimelineIndex? = nil) {
        let now = clock()
        let (saved, reads): ([(PositionSnapshot, PositionTracker.Visit?)], [Post]) = state.withLock { state in
            guard state.configuration.positionPersistence.enabled else { return ([], []) }
            let saved = visits(of: state.tracker.observe(event, at: now, in: index), in: index, tracker: state.tracker)
            state.resumeState.observe(event, at: now)
            return (saved, event == .background || !saved.isEmpty ? state.tracker.takeUnsavedReads() : [])
        }
        persist(saved, reads: reads)
        // In the background no change is heard and no round runs; back in front, sync listens
        // again: in order with the saves, through the writer.
        if sync != nil {
            switch event {
            case .background: writer.enqueue([.pause])
            case .foreground, .launch: writer.enqueue([.resume])
            case .terminate: break
            }
        }
    }

    /// The snapshot a restore would start from now (the one rule, `RestoreStart`).
    public func snapshot() async -> PositionSnapshot? {
        await restoreStart(at: clock()).snapshot
    }

    /// Where a restore at `now` starts: the live anchor; else, with sync, the register's winner
    /// when another device wrote it; else this device's newest saved snapshot.
    public func restoreStart(at now: Date) async -> RestoreStart {
        // What was saved is written first: the register then holds this device's last write.
        await writer.drain()
        let (own, learned) = state.withLock { ($0.tracker.restoreInputWithLiveness(at: now), $0.tracker.learnedDirection) }
        var register: Register?
        if sync != nil, let store {
            do {
                register = try await store.sync.register(of: RegisterKey(account: scope.account, timeline: scope.timeline))
            } catch {
                report(error)
            }
        }
        return RestoreStart.decide(
            own: own.snapshot, ownIsLive: own.isLive, ownDirection: learned, register: register,
            policy: register == nil ? nil : sync?.components.policy, device: sync?.device)
    }

    /// The saved positions, newest first.
    public var history: [PositionSnapshot] { state.withLock { $0.tracker.history } }

    /// Where to put the reader back in `index`, whether to do it silently, and the choices to offer.
    public func restore(in index: TimelineIndex) async -> RestoreResult {
        settle(now: false)
        let now = clock()
        let start = await restoreStart(at: now)
        let snapshot = start.snapshot
        let (pipeline, history, policy, resumeState, read) = state.withLock {
            ($0.pipeline, $0.tracker.history, $0.policy, $0.resumeState, $0.tracker.readPosts)
        }
        let close = resumeState.close(under: policy, at: now, hasHistory: snapshot != nil || !history.isEmpty)
        guard index.count > 0 else {
            if snapshot != nil { restoreMetrics.record(nil, source: start.source, reached: false, decision: .zero) }
            return RestoreResult(restoration: nil, close: close, restoreSilently: false, suggestions: [], trace: [])
        }
        if close == .freshInstall || snapshot == nil {
            return RestoreResult(
                restoration: ResumePolicy.top(of: index, because: "no saved position: the top of the timeline"),
                close: close, restoreSilently: true, suggestions: [], trace: [])
        }
        let started = ContinuousClock.now
        let outcome = pipeline.restore(RestorationRequest(snapshot: snapshot, index: index, direction: start.direction))
        restoreMetrics.record(outcome.restoration, source: start.source, reached: false, decision: ContinuousClock.now - started)
        // The store's logger (`TimelineStore.init(path:create:loggers:)`), swift-log's without one.
        outcome.log(pipeline: pipeline, posts: index.count, to: store?.loggers.position ?? LogCategory.position.logger)
        let suggestions = SuggestionBuilder().suggestions(
            restoration: outcome.restoration, snapshot: snapshot, history: history,
            index: index, now: now, ownReplaced: start.source == .synced ? start.ownSnapshot : nil,
            offered: start.offer.dropFirst().map { choice in
                var offered = choice.snapshot
                offered.deviceId = choice.device
                offered.savedAt = choice.savedAt
                return offered
            })
        let restoration = policy.apply(outcome.restoration, after: close, in: index)
        if let restoration, let store {
            do {
                try await store.positions.saveRestoration(restoration, scope: scope, at: now)
            } catch {
                report(error)
            }
        }
        // Where the merge policy asks (two devices' reading diverged), the reader chooses.
        let silent = !start.prompts && policy.restoresSilently(after: close, confidence: restoration?.confidence ?? 0)
        // Restored silently, the app puts the reader there: a background before any scroll saves
        // that place, not the one before the restore.
        if silent, let restoration { placed(at: restoration.contentOffset, in: index) }
        return RestoreResult(
            restoration: restoration, close: close, restoreSilently: silent,
            suggestions: silent ? [] : suggestions, trace: outcome.trace,
            unreadAbove: restoration.map { UnreadCount.above($0.index, in: index, read: read.including(digests: start.readElsewhere)) } ?? 0)
    }

    /// Tells the engine the app put the reader at `contentOffset` of `index` itself (a
    /// suggestion the reader took, a restore applied after `restore(in:)` offered a choice), with
    /// no scroll to observe: the next background saves that place. A silent restore does this
    /// by itself.
    public func placed(at contentOffset: Double, in index: TimelineIndex) {
        let now = clock()
        state.withLock { $0.tracker.placed(offset: contentOffset, viewportHeight: index.viewportHeight, in: index, at: now) }
    }

    /// What `performMaintenance` did.
    public struct MaintenanceResult: Sendable, Equatable {
        /// What was removed from the store (all zero without a store).
        public var removed: TimelineStore.MaintenanceReport
        /// Snapshots dropped from the in-memory history.
        public var historyTrimmed: Int
        /// True when the caches shrank to their floors.
        public var underMemoryPressure: Bool
    }

    /// Trims the history, the read ids and the cached posts by the configured policies (the
    /// seed's `performMaintenance`). When `memoryUse` (the fraction of memory in use, 0…1)
    /// reaches `Performance.MemoryWarningThreshold`, every cache shrinks to its floor
    /// (`TimelineCache.MemoryPressureFloor`; the history to its newest snapshot).
    public func performMaintenance(memoryUse: Double? = nil) async throws -> MaintenanceResult {
        let configuration = state.withLock { $0.configuration }
        let policies = try CachePolicyBuilder(registry: registry, configuration: configuration).maintenancePolicies(memoryUse: memoryUse)
        let now = clock()
        let trimmed = state.withLock { state in
            let history = state.tracker.history
            let evicted = Set(policies.history.evictions(from: history.map { CacheEntry(key: $0.postId, storedAt: $0.savedAt ?? now) }, now: now))
            guard !evicted.isEmpty else { return 0 }
            state.tracker.restoreHistory(history.filter { !evicted.contains($0.postId) })
            return evicted.count
        }
        var removed = TimelineStore.MaintenanceReport()
        if let store {
            removed = try await store.performMaintenance(
                timelinePolicy: policies.timeline, historyPolicy: policies.history,
                readPostsPolicy: policies.readPosts, now: now)
        }
        return MaintenanceResult(removed: removed, historyTrimmed: trimmed, underMemoryPressure: policies.underMemoryPressure)
    }

    /// Loads `source` cache-first into the store (see `CacheFirstLoader`), with the configured
    /// network policy, request timeout, cache policy and pipeline. The cached timeline is
    /// handed to `onCached` before the refresh starts. Throws when the engine has no store or
    /// the store fails; a failing source is reported in the result.
    public func loadTimeline(
        from source: TimelineSource, onCached: @Sendable (TimelineStore.CachedTimeline?) -> Void = { _ in },
        progress: @Sendable (SourceFetcher.Progress) -> Void = { _ in }
    ) async throws -> CacheFirstLoader.Report {
        guard let store else { throw StoreError(path: "(none)", "the engine has no store; pass one to TimelineEngine(store:)") }
        let (configuration, pipeline) = state.withLock { ($0.configuration, $0.pipeline) }
        let builder = CachePolicyBuilder(registry: registry, configuration: configuration)
        let networkBuilder = NetworkPolicyBuilder(registry: registry, configuration: configuration)
        let loader = CacheFirstLoader(
            store: store, scope: scope,
            fetcher: SourceFetcher(
                policy: try networkBuilder.build(), requestTimeout: configuration.network.requestTimeout,
                fetchDeadline: configuration.network.fetchDeadline, logger: store.loggers.timeline),
            pipeline: pipeline, cachePolicy: try builder.timelineCache(), reach: try networkBuilder.reachStrategy(),
            sync: sync.map { CacheFirstLoader.SyncView(policy: $0.components.policy, device: $0.device) }, now: clock)
        let report = try await loader.load(from: source, onCached: onCached, progress: progress)
        if let start = report.start, let decision = report.decision {
            restoreMetrics.record(report.restoration, source: start.source, reached: report.reached, decision: decision)
        }
        return report
    }

    /// The index of `cached`, a timeline read from the engine's store (the one `loadTimeline`
    /// hands to `onCached`, say), with what is kept in the store for these very posts mapped
    /// into memory (`TimelineCacheStore.index(of:scope:)`): a first restore then makes neither the
    /// text index nor the time order (seconds, and a tenth of a second, at a million posts).
    public func index(of cached: TimelineStore.CachedTimeline) -> TimelineIndex {
        store?.timelines.index(of: cached, scope: scope) ?? TimelineIndex(cached.timeline)
    }

    /// Keeps the index of `cached` in the store for the next launch's `index(of:)`, making
    /// what `index` has not made yet. At a million posts that is seconds of work: call it off
    /// the main thread, when the app has time (going to the background, say). Throws when the
    /// engine has no store or the files cannot be written.
    public func keepIndex(of index: TimelineIndex, for cached: TimelineStore.CachedTimeline) async throws {
        guard let store else { throw StoreError(path: "(none)", "the engine has no store; pass one to TimelineEngine(store:)") }
        try await store.timelines.keepIndex(index, for: cached, scope: scope)
    }

    /// The ranked choices for "Continue reading?" in `index`.
    public func suggestions(in index: TimelineIndex) async -> [RestorationSuggestion] {
        let now = clock()
        let start = await restoreStart(at: now)
        let snapshot = start.snapshot
        let (pipeline, history) = state.withLock { ($0.pipeline, $0.tracker.history) }
        let outcome = pipeline.restore(RestorationRequest(snapshot: snapshot, index: index, direction: start.direction))
        // With sync, the other devices' last positions: "Continue from laptop · 3 min ago".
        var others: [PositionSnapshot] = []
        if let sync, let store, let state = try? await store.sync.replicaState() {
            let key = RegisterKey(account: scope.account, timeline: scope.timeline)
            others = state.heads(of: key).filter { $0.device != sync.device }.compactMap { record in
                record.snapshot.map { snapshot in
                    var stamped = snapshot
                    stamped.deviceId = record.device
                    stamped.savedAt = record.savedAt
                    return stamped
                }
            }
        }
        return SuggestionBuilder().suggestions(
            restoration: outcome.restoration, snapshot: snapshot, history: history, index: index, now: now,
            otherDevices: others, ownReplaced: start.source == .synced ? start.ownSnapshot : nil)
    }
}
