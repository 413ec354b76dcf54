import Foundation
import Testing
import TimelineEngineKit
import TimelineEngineTestSupport

/// The façade as a service: `run()` writes saves in order and returns on `shutdown()` once they
/// are written; without `run()`, a restore, `flush()` or dropping the engine writes them; dropping
/// it stops its sync.
@Suite("The engine's lifecycle", .timeLimit(.minutes(10)))
struct EngineLifecycleTests {
    static let index = TimelineIndex(Timeline(posts: TimelineEngineTests.posts, viewportHeight: 600))
    static let scope = StoreScope(account: "me", timeline: "home")

    static func store(in directory: URL) async throws -> TimelineStore {
        try await TimelineStore(path: directory.appendingPathComponent("engine.sqlite").path)
    }

    @Test("run() writes each save as it is made, in order, and returns on shutdown() once every one is written")
    func runAndShutdown() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await Self.store(in: directory)
        let clock = TestClock()
        let engine = try await TimelineEngine(store: store, scope: Self.scope, clock: { clock.now })
        let running = Task { await engine.run() }
        // Each background saves the place: ten saves, ten minutes apart.
        for step in 0..<10 {
            engine.observeScroll(offset: Double(step * 100), viewportHeight: 600, in: Self.index)
            engine.observe(.background, in: Self.index)
            clock.advance(600)
        }
        engine.shutdown()
        try await Deadline.value(within: 30, "run() to return") { await running.value }
        let stored = try await store.positions.history(scope: Self.scope).map(\.postId)
        #expect(stored == engine.history.map(\.postId))
        #expect(stored.first == "p9")
        #expect(engine.lastStoreError == nil)
        // A second run() after shutdown returns at once.
        try await Deadline.value(within: 30, "a second run() to return") { await engine.run() }
    }

    @Test("without run(), a restore writes what was saved before it reads the store")
    func restoreDrains() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await Self.store(in: directory)
        let engine = try await TimelineEngine(store: store, scope: Self.scope)
        engine.observeScroll(offset: 2010, viewportHeight: 600, in: Self.index)
        engine.observe(.background, in: Self.index)
        _ = await engine.restore(in: Self.index)
        #expect(try await store.positions.history(scope: Self.scope).map(\.postId) == ["p20"])
    }

    @Test("dropping the engine writes what it saved and stops its sync")
    func dropping() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let shared = directory.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let json = #"{"Sync": {"Transport": {"Strategy": "Directory", "Path": "\#(shared.path)"}, "DebounceInterval": 3600}}"#
        let configuration = ConfigurationLoader().read(data: Data(json.utf8)).configuration
        let store = try await Self.store(in: directory)
        var engine: TimelineEngine? = try await TimelineEngine(configuration: configuration, deviceId: "phone", store: store, scope: Self.scope)
        let sync = try #require(engine?.sync)
        engine?.observeScroll(offset: 2010, viewportHeight: 600, in: Self.index)
        engine?.observe(.background, in: Self.index)
        engine = nil
        #expect(await sync.isStopped)
        try await Deadline.wait(seconds: 30, "the dropped engine's save in the store") {
            try await store.sync.register(of: RegisterKey(account: "me", timeline: "home")).head(of: "phone")?.snapshot?.postId == "p20"
        }
    }
}
