import Foundation
import Testing
import TimelineEngineHTTPExchange
import TimelineEngineKit
import TimelineEngineNIOHTTP
import TimelineEngineSupport
import TimelineEngineTestSupport

/// `reload(configuration:)` applies every section, all at once, or none.
@Suite("Reloading the configuration", .timeLimit(.minutes(10)))
struct ReloadTests {
    static func configuration(_ json: String) -> TimelineConfiguration {
        let loaded = ConfigurationLoader().read(data: Data(json.utf8))
        precondition(loaded.errors.isEmpty, "\(loaded.diagnostics)")
        return loaded.configuration
    }

    static let index = TimelineIndex(Timeline(posts: TimelineEngineTests.posts, viewportHeight: 600))

    @Test("the resume policy: after a reload, a minute away is a soft close rather than a hard one")
    func resumePolicy() async throws {
        let now = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        let engine = try await TimelineEngine(clock: { now.withLock { $0 } })
        func away(_ seconds: Double) async -> TimelineEngine.RestoreResult {
            engine.observeScroll(offset: 2010, viewportHeight: 600, in: Self.index)
            engine.observe(.background, in: Self.index)
            await engine.flush()
            now.withLock { $0 += seconds }
            engine.observe(.foreground)
            return await engine.restore(in: Self.index)
        }
        await #expect(away(60).close == .hard)
        try await engine.reload(configuration: Self.configuration(#"{"Resume": {"HardCloseThreshold": 3600}}"#))
        let result = await away(60)
        #expect(result.close == .soft)
        #expect(result.restoration?.postId == "p20")
    }

    @Test("the history's bound: the tracker keeps the new MaxHistorySize from the next save")
    func trackerSettings() async throws {
        let engine = try await TimelineEngine(configuration: Self.configuration(#"{"PositionPersistence": {"AutoSaveInterval": 0}}"#))
        for offset in stride(from: 0.0, through: 4000, by: 500) {
            engine.observeScroll(offset: offset, viewportHeight: 600, in: Self.index)
            engine.observe(.background, in: Self.index)
            await engine.flush()
            engine.observe(.foreground)
        }
        #expect(engine.history.count == 9)
        try await engine.reload(configuration: Self.configuration(#"{"PositionPersistence": {"AutoSaveInterval": 0, "MaxHistorySize": 3}}"#))
        engine.observeScroll(offset: 4500, viewportHeight: 600, in: Self.index)
        engine.observe(.background, in: Self.index)
        await engine.flush()
        #expect(engine.history.count == 3)
    }

    @Test("the cache policies: maintenance after a reload trims to the new MaxCacheSize")
    func cachePolicy() async throws {
        let (directory, store, _) = try await FacadeMaintenanceTests.storeWithPosts()
        defer { try? FileManager.default.removeItem(at: directory) }
        let engine = try await TimelineEngine(store: store, clock: { FacadeMaintenanceTests.now })
        await #expect(try engine.performMaintenance().removed.cachedPosts == 0)
        try await engine.reload(configuration: Self.configuration(#"{"TimelineCache": {"MaxCacheSize": 10}}"#))
        await #expect(try engine.performMaintenance().removed.cachedPosts == 30)
    }

    @Test("the network policy: a refresh after a reload retries as the new policy says")
    func networkPolicy() async throws {
        HTTPExchanges.bootstrapIfNeeded(NIOHTTPExchange())
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.handle(prefix: "/") { _, _ in LoopbackHTTPServer.Answer(status: 503, body: Data("busy".utf8)) }
        let engine = try await TimelineEngine(store: try TimelineStore(path: directory.appendingPathComponent("s.sqlite").path))
        let source = TimelineSource.mastodon(try #require(URL(string: server.baseURL + "/api/v1/timelines/home")), tokenVariable: "NO_TOKEN")
        #expect(try await engine.loadTimeline(from: source).attempts.count == 1)
        try await engine.reload(
            configuration: Self.configuration(
                #"{"Network": {"Policy": {"Strategy": "ExponentialBackoff", "MaxAttempts": 3, "BaseDelay": 0.01, "MaxDelay": 0.02}}}"#))
        #expect(try await engine.loadTimeline(from: source).attempts.count == 3)
    }

    @Test("the transport, while rounds run: a round in flight ends on the old folder, the next ones go to the new, the outbox moves with them")
    func transportWhileSyncing() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("first")
        let second = directory.appendingPathComponent("second")
        for folder in [first, second] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        func syncing(to folder: URL) -> TimelineConfiguration {
            Self.configuration(#"{"Sync": {"Transport": {"Strategy": "Directory", "Path": "\#(folder.path)"}, "DebounceInterval": 3600}}"#)
        }
        let store = try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        let engine = try await TimelineEngine(configuration: syncing(to: first), deviceId: "phone", store: store)
        let old = try #require(engine.sync)
        engine.observeScroll(offset: 2010, viewportHeight: 600, in: Self.index)
        engine.observe(.background, in: Self.index)
        await engine.flush()
        // Rounds run on the old transport while the reload happens.
        let rounds = Task { () -> Int in
            var done = 0
            for _ in 0..<3 where (try? await old.syncNow()) != nil { done += 1 }
            return done
        }
        try await engine.reload(configuration: syncing(to: second))
        let new = try #require(engine.sync)
        #expect(new !== old)
        #expect(new.components.transport.name == "Directory")
        // The old coordinator finishes what it runs, then stops; the rounds it ran wrote the first folder.
        let finished = try await Deadline.value(within: 300, "the old rounds") { await rounds.value }
        #expect(finished >= 1)
        #expect(FileManager.default.fileExists(atPath: first.appendingPathComponent("phone.timeline-sync.json").path))
        // A save after the reload goes through the new transport.
        engine.observeScroll(offset: 3010, viewportHeight: 600, in: Self.index)
        engine.observe(.background, in: Self.index)
        await engine.flush()
        try await new.syncNow()
        new.shutdown()
        #expect(try await store.sync.pendingWrites().isEmpty)
        let published = try String(contentsOf: second.appendingPathComponent("phone.timeline-sync.json"), encoding: .utf8)
        #expect(published.contains("p30"))
        // Sync off: the coordinator goes.
        try await engine.reload(configuration: Self.configuration(#"{"PositionPersistence": {"CrossSessionSync": false}}"#))
        #expect(engine.sync == nil)
    }

    @Test("dropping the engine stops its sync coordinator: it listens no longer and arms no timer")
    func droppedEngineStopsSync() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let shared = directory.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let store = try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        var engine: TimelineEngine? = try await TimelineEngine(
            configuration: Self.configuration(#"{"Sync": {"Transport": {"Strategy": "Directory", "Path": "\#(shared.path)"}}}"#),
            deviceId: "phone", store: store)
        let coordinator = try #require(engine?.sync)
        #expect(await !coordinator.isStopped)
        engine = nil
        try await Deadline.wait(seconds: 60, "the coordinator of a dropped engine stops") { await coordinator.isStopped }
    }

    @Test("logging: a reload sets the levels and sinks of a routing that follows the configuration, and leaves one that does not")
    func logging() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let routing = LogRouting()
        let engine = try await TimelineEngine(logRouting: routing)
        try await engine.reload(configuration: Self.configuration(#"{"Debug": {"SyncLogging": true}}"#))
        #expect(routing.levels == LogLevels())
        routing.followsConfiguration = true
        let path = directory.appendingPathComponent("log.jsonl").path
        try await engine.reload(
            configuration: Self.configuration(
                #"{"Debug": {"SyncLogging": true}, "Logging": {"Sinks": [{"Sink": "JSONLines", "Path": "\#(path)"}]}}"#))
        #expect(routing.levels[.sync] == .debug)
        #expect(routing.levels[.position] == .notice)
        #expect(routing.sinks.count == 1 && routing.sinks.first is JSONLinesLogSink)
        routing.verbosity = LogRouting.Verbosity(quiet: true)
        try await engine.reload(configuration: Self.configuration(#"{"Debug": {"VerboseMode": true}}"#))
        #expect(LogCategory.allCases.allSatisfy { routing.levels[$0] == .error })
        #expect(routing.sinks.first is StderrLogSink)
    }

    @Test("an invalid configuration changes nothing: strategies that cannot be built throw, a file with errors returns them")
    func invalidReloadChangesNothing() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let shared = directory.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let syncing = Self.configuration(#"{"Sync": {"Transport": {"Strategy": "Directory", "Path": "\#(shared.path)"}, "DebounceInterval": 3600}}"#)
        let engine = try await TimelineEngine(
            configuration: syncing, deviceId: "phone",
            store: try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path))
        let coordinator = try #require(engine.sync)
        let summary = engine.pipelineSummary
        var broken = syncing
        broken.sync.policy = ComponentSpec(name: "LatestWins")
        broken.positionPersistence.smartRestoration = false
        await #expect(
            throws: PipelineError(
                "unknown merge policy \"LatestWins\". Registered: CausalFurthest, FurthestRead, FurthestWithPrompt, LastWriterWins, MarkerArrival, NewerForwardOnly, Overwrite, WallClock"
            )
        ) {
            try await engine.reload(configuration: broken)
        }
        #expect(engine.pipelineSummary == summary)
        #expect(engine.sync === coordinator)

        let file = directory.appendingPathComponent("broken.json")
        try #"{"Restoration": {"MinimumConfidence": "high"}, "Sync": {"DebounceInterval": 1}}"#.write(to: file, atomically: true, encoding: .utf8)
        let outcome = await engine.reload(contentsOf: file)
        #expect(!outcome.applied)
        #expect(
            outcome.diagnostics.map(\.description) == [
                "\(file.path):1:39: error: Restoration.MinimumConfidence: expected number, found string \"high\""
            ])
        #expect(engine.sync === coordinator)

        try #"{"Restoration": {"Pipeline": [{"Strategy": "ExactMatch"}, {"Strategy": "Fallback"}]}}"#.write(
            to: file, atomically: true, encoding: .utf8)
        let applied = await engine.reload(contentsOf: file)
        #expect(applied.applied && applied.diagnostics.isEmpty)
        #expect(engine.pipelineSummary == "ExactMatch > Fallback(Mode: NearestContent) | ViewportAnchor")
        #expect(engine.sync == nil)
        coordinator.shutdown()
    }
}
