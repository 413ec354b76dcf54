import Clocks
import Foundation
import Testing
import TimelineEngineHTTPExchange
import TimelineEngineKit
import TimelineEngineNIOHTTP
import TimelineEngineSupport
import TimelineEngineTestSupport

@Suite("TimelineEngine with a store", .timeLimit(.minutes(10)))
struct PersistenceTests {
    @Test("after a restart, restoration starts from the persisted history")
    func restart() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("engine.sqlite").path
        let scope = StoreScope(account: "me", timeline: "home")
        let clock = TestClock()
        let index = TimelineIndex(Timeline(posts: TimelineEngineTests.posts, viewportHeight: 600))
        do {
            let engine = try await TimelineEngine(store: try TimelineStore(path: path), scope: scope, clock: { clock.now })
            engine.observeScroll(offset: 1230, viewportHeight: 600, in: index)
            clock.advance(2)
            engine.observeScroll(offset: 2010, viewportHeight: 600, in: index)  // not autosaved: 2 s after the last save
            engine.observe(.background, in: index)  // saves p20
            await engine.flush()
            #expect(engine.lastStoreError == nil)
        }
        // The process ends; a new one opens the same store.
        clock.advance(3600)
        let store = try await TimelineStore(path: path)
        #expect(try await store.positions.history(scope: scope).map(\.postId) == ["p20", "p12"])
        let engine = try await TimelineEngine(store: store, scope: scope, clock: { clock.now })
        engine.observe(.launch)
        #expect(engine.history.map(\.postId) == ["p20", "p12"])
        let result = await engine.restore(in: index)
        #expect(result.restoration?.postId == "p20")
        #expect(result.restoration?.viewportY == -10)
        #expect(try await store.positions.lastRestoration(scope: scope)?.json.contains("\"postId\":\"p20\"") == true)
        // Another account's history is its own.
        let other = try await TimelineEngine(store: store, scope: StoreScope(account: "someone else"), clock: { clock.now })
        #expect(other.history.isEmpty)
    }

    @Test("an index kept through the façade is mapped at the next launch, and a re-drafted post is found with it")
    func keptIndex() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("engine.sqlite").path
        let scope = StoreScope(account: "me", timeline: "home")
        let clock = TestClock()
        let words = ["harbour", "lantern", "orchard", "granite", "meadow", "violin", "copper", "thistle", "glacier", "saffron"]
        let posts = (0..<50).map { number in
            Post(
                id: "p\(number)", createdAt: Date(timeIntervalSince1970: 1_700_000_000 - Double(120 * number)),
                text: "post \(number) about the \(words[number % 10]) and the \(words[(number / 10 + 3) % 10]) \(number * 7)", height: 100)
        }
        do {
            let store = try await TimelineStore(path: path)
            try await store.timelines.saveTimeline(posts, scope: scope, viewportHeight: 600, refreshedAt: clock.now)
            let engine = try await TimelineEngine(store: store, scope: scope, clock: { clock.now })
            let cached = try #require(try await store.timelines.timeline(scope: scope))
            let index = engine.index(of: cached)
            #expect(index.textIndexBuildNanoseconds == nil)
            engine.observeScroll(offset: 2000, viewportHeight: 600, in: index)
            engine.observe(.background, in: index)
            await engine.flush()
            // p20 is re-drafted: gone, and the same text under a new id, written a minute later.
            var redrafted = posts
            redrafted[20].id = "p20-redraft"
            redrafted[20].createdAt = clock.now.addingTimeInterval(60)
            try await store.timelines.saveTimeline(redrafted, scope: scope, viewportHeight: 600, refreshedAt: clock.now)
            let saved = try #require(try await store.timelines.timeline(scope: scope))
            try await engine.keepIndex(of: engine.index(of: saved), for: saved)
        }
        clock.advance(3600)
        let store = try await TimelineStore(path: path)
        let engine = try await TimelineEngine(store: store, scope: scope, clock: { clock.now })
        engine.observe(.launch)
        let index = engine.index(of: try #require(try await store.timelines.timeline(scope: scope)))
        #expect(index.textIndexBuildNanoseconds == 0)
        let result = await engine.restore(in: index)
        #expect(result.restoration?.postId == "p20-redraft")
        #expect(result.restoration?.method == .contentSimilarity)
        // Without a store there is nowhere to keep it.
        let storeless = try await TimelineEngine()
        await #expect(throws: StoreError.self) { try await storeless.keepIndex(of: index, for: TimelineStore.CachedTimeline(posts: posts)) }
    }
}

@Suite("Trailing saves through the façade", .timeLimit(.minutes(10)))
struct FacadeTrailingSaveTests {
    @Test("the place where scrolling rests reaches the store, so a hard close after it loses nothing")
    func settledPositionSurvivesAHardClose() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("engine.sqlite").path
        let clock = TestClock()
        let index = TimelineIndex(Timeline(posts: TimelineEngineTests.posts, viewportHeight: 600))
        do {
            let store = try await TimelineStore(path: path)
            let engine = try await TimelineEngine(store: store, clock: { clock.now })
            // The app runs the engine: its writer takes each save to the store as it is made.
            let running = Task { await engine.run() }
            func stored() async throws -> [String] { try await store.positions.history(scope: StoreScope()).map(\.postId) }
            engine.observeScroll(offset: 1230, viewportHeight: 600, in: index)  // saved: the first scroll
            try await Deadline.wait(seconds: 60, "the first save in the store") { try await stored() == ["p12"] }
            clock.advance(2)
            engine.observeScroll(offset: 2010, viewportHeight: 600, in: index)  // 2 s after the save: waits for a rest
            #expect(engine.history.map(\.postId) == ["p12"])
            // The app knows scrolling ended (scrollViewDidEndDecelerating): saved at once, not
            // after AutoSaveSettleDelay; a second call has nothing left to save.
            engine.settle()
            #expect(engine.history.map(\.postId) == ["p20", "p12"])
            engine.settle()
            #expect(engine.history.map(\.postId) == ["p20", "p12"])
            try await Deadline.wait(seconds: 60, "the trailing save in the store") { try await stored() == ["p20", "p12"] }
            // The process is killed here: no background, no terminate.
            engine.shutdown()
            await running.value
        }
        let engine = try await TimelineEngine(store: try TimelineStore(path: path), clock: { clock.now })
        clock.advance(600)
        engine.observe(.launch)
        await #expect(engine.restore(in: index).restoration?.postId == "p20")
    }

    @Test("the engine makes the trailing save by itself once scrolling rests, on its timers' clock")
    func timerMakesTheSave() async throws {
        let configuration = ConfigurationLoader().read(data: Data(#"{"PositionPersistence": {"AutoSaveSettleDelay": 1}}"#.utf8)).configuration
        let timers = Clocks.TestClock<Duration>()
        let clock = Locked(Date(timeIntervalSince1970: 1_790_000_000))
        let engine = try await TimelineEngine(configuration: configuration, clock: { clock.withLock { $0 } }, timers: timers)
        let running = Task { await engine.run() }
        let index = TimelineIndex(Timeline(posts: TimelineEngineTests.posts, viewportHeight: 600))
        engine.observeScroll(offset: 0, viewportHeight: 600, in: index)
        engine.observeScroll(offset: 2010, viewportHeight: 600, in: index)
        #expect(engine.history.map(\.postId) == ["p0"])
        clock.withLock { $0 += 1 }
        // run() may start its timer after a first advance: the timers' clock moves on a second
        // at a time until the save is made, never past it.
        try await Deadline.wait(seconds: 60, "the settle timer's save") {
            if engine.history.first?.postId == "p20" { return true }
            await timers.advance(by: .seconds(1))
            return engine.history.first?.postId == "p20"
        }
        #expect(engine.history.map(\.postId) == ["p20", "p0"])
        // Dropping the engine, or shutting it down, ends run().
        engine.shutdown()
        try await Deadline.value(within: 60, "run() to return") { await running.value }
    }
}

@Suite("N new above you through the façade and the store", .timeLimit(.minutes(10)))
struct FacadeUnreadTests {
    @Test("what passed through the viewport is stored with the saves, read back after a relaunch, and counted against")
    func readAcrossRelaunch() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("engine.sqlite").path
        let clock = TestClock()
        let posts = TimelineEngineTests.posts
        let index = TimelineIndex(Timeline(posts: posts, viewportHeight: 600))
        do {
            let store = try await TimelineStore(path: path)
            let engine = try await TimelineEngine(store: store, clock: { clock.now })
            engine.observeScroll(offset: 0, viewportHeight: 600, in: index)
            clock.advance(5)
            engine.observeScroll(offset: 2010, viewportHeight: 600, in: index)  // passed p0 … p26
            engine.observe(.background, in: index)
            await engine.flush()
            #expect(try await store.positions.readPosts(scope: StoreScope()).count == 27)
        }
        // Relaunched: five new posts on top, one a boost of a post read, and a re-draft of p3
        // (the same author, a word added).
        let store = try await TimelineStore(path: path)
        let engine = try await TimelineEngine(store: store, clock: { clock.now })
        engine.observe(.launch)
        let fresh = [
            Post(id: "n1", createdAt: Date(timeIntervalSince1970: 1_700_000_500), text: "a brand new post here", height: 100),
            Post(id: "n2", createdAt: Date(timeIntervalSince1970: 1_700_000_400), author: "x", text: "post 5", height: 100, boostOf: "p5"),
            Post(id: "n3", createdAt: Date(timeIntervalSince1970: 1_700_000_300), text: "another new one today", height: 100),
        ]
        var redraft = posts[3]
        redraft.id = "p3-redraft"
        redraft.author = "ann"
        var original = posts
        original[3].author = "ann"
        original[3].text = "the original text of post three"
        redraft.text = "the original text of post three!"
        try await store.positions.markRead(posts: [original[3]], scope: StoreScope(), at: clock.now)
        let relaunched = try await TimelineEngine(store: store, clock: { clock.now })
        let grown = TimelineIndex(Timeline(posts: fresh + [redraft] + posts, viewportHeight: 600))
        let result = await relaunched.restore(in: grown)
        #expect(result.restoration?.postId == "p20")
        // n1 and n3 are new; the boost of p5 and the re-draft of p3 are not.
        #expect(result.unreadAbove == 2)
        _ = engine
    }
}

@Suite("Maintenance through the façade", .timeLimit(.minutes(10)))
struct FacadeMaintenanceTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// A store in a new folder with 40 cached posts, a minute apart, refreshed at `now`.
    static func storeWithPosts() async throws -> (directory: URL, store: TimelineStore, posts: [Post]) {
        let directory = try Fixtures.temporaryDirectory()
        let store = try await TimelineStore(path: directory.appendingPathComponent("s.sqlite").path)
        let posts = (0..<40).map { Post(id: "p\($0)", createdAt: now.addingTimeInterval(Double(-60 * $0)), text: "post \($0)") }
        try await store.timelines.saveTimeline(posts, scope: StoreScope(), refreshedAt: now)
        return (directory, store, posts)
    }

    @Test("performMaintenance shrinks the caches to their floors under memory pressure, and reports it")
    func memoryPressure() async throws {
        let (directory, store, posts) = try await Self.storeWithPosts()
        defer { try? FileManager.default.removeItem(at: directory) }
        let now = Self.now
        for n in 0..<3 {
            try await store.positions.saveSnapshot(PositionSnapshot(postId: "p\(n)", savedAt: now.addingTimeInterval(Double(n))), scope: StoreScope())
        }
        try await store.positions.markRead(posts.map(\.id), scope: StoreScope(), at: now)
        let configuration = ConfigurationLoader().read(data: Data(#"{"TimelineCache": {"MemoryPressureFloor": 5}}"#.utf8)).configuration
        let engine = try await TimelineEngine(configuration: configuration, store: store, clock: { now })
        let relaxed = try await engine.performMaintenance(memoryUse: 0.3)
        #expect(!relaxed.underMemoryPressure)
        #expect(relaxed.removed == TimelineStore.MaintenanceReport())
        let pressed = try await engine.performMaintenance(memoryUse: 0.95)
        #expect(pressed.underMemoryPressure)
        #expect(pressed.removed == TimelineStore.MaintenanceReport(cachedPosts: 35, snapshots: 2, readPosts: 35))
        #expect(pressed.historyTrimmed == 2)
        await #expect(engine.snapshot()?.postId == "p2")
        #expect(try await store.positions.history(scope: StoreScope()).map(\.postId) == ["p2"])
    }

    @Test("the system's memory use is read from /proc/meminfo")
    func systemMemory() {
        #expect(SystemMemory.usedFraction(meminfo: "MemTotal:       16000000 kB\nMemFree: 1 kB\nMemAvailable:    4000000 kB\n") == 0.75)
        #expect(SystemMemory.usedFraction(meminfo: "MemTotal: 0 kB\n") == nil)
        #if os(Linux)
        #expect(SystemMemory.usedFraction().map { (0...1).contains($0) } == true)
        #endif
    }
}

@Suite("Cache-first loading through the façade", .timeLimit(.minutes(10)))
struct FacadeLoadingTests {
    @Test("loadTimeline stores the source's timeline and restores the persisted position on it")
    func load() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await TimelineStore(path: directory.appendingPathComponent("s.sqlite").path)
        try await store.positions.saveSnapshot(PositionSnapshot(postId: "1600602374875275267", viewportY: -10, savedAt: Date()), scope: StoreScope())
        let engine = try await TimelineEngine(store: store)
        let report = try await engine.loadTimeline(from: .file(path: Fixtures.url("posts/home-timeline-2022-12-07.jsonl").path, format: nil))
        #expect(report.status == .fresh)
        #expect(report.timeline.posts.count == 97)
        #expect(report.restoration?.postId == "1600602374875275267")
        #expect(report.restoration?.index == 2)
        await #expect(throws: StoreError.self) {
            _ = try await TimelineEngine().loadTimeline(from: .file(path: "x.json", format: nil))
        }
    }
}

@Suite("Reaching a synced post through the façade", .timeLimit(.minutes(10)))
struct FacadeReachTests {
    static func post(_ n: Int) -> Post {
        Post(id: "\(n)", createdAt: Date(timeIntervalSince1970: 1_795_478_400 + Double(60 * n)), author: "a", text: "post \(n)")
    }

    @Test("loadTimeline starts from another device's synced position and reaches it on a Bluesky-shaped server; a deleted one is told apart")
    func blueskyReach() async throws {
        // An app bootstraps its HTTP client once, as the command line does.
        HTTPExchanges.bootstrapIfNeeded(NIOHTTPExchange())
        let (directory, _, configuration) = try FacadeSyncTests.setup()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try FakeTimelineServer(mastodon: false, posts: (1...600).reversed().map(Self.post))
        let store = try await TimelineStore(path: directory.appendingPathComponent("laptop.sqlite").path)
        let engine = try await TimelineEngine(configuration: configuration, deviceId: "laptop", store: store)
        engine.sync?.shutdown()
        let source = TimelineSource.bluesky(server.timelineURL, tokenVariable: "NO_TOKEN")
        _ = try await engine.loadTimeline(from: source)
        server.change { $0.insert((601...1000).reversed().map(Self.post)) }
        let phone = PositionSnapshot(postId: "800", postCreatedAt: Self.post(800).createdAt, savedAt: Date())
        try await store.sync.savePosition(phone, scope: StoreScope(), device: "phone", at: Date())
        let report = try await engine.loadTimeline(from: source)
        #expect(report.start?.source == .synced)
        #expect(report.reach?.outcome == .reached)
        #expect(report.reach?.requests.map(\.request.description) == ["page of 100 from the top after i:40", "page of 100 from the top after i:140"])
        #expect(report.restoration?.postId == "800")

        // The phone moves on to post 700, which is then deleted: the pages pass it by time and a
        // lookup says it is gone; the restore goes below where it was.
        server.change { $0.delete(["700"]) }
        try await store.sync.savePosition(
            PositionSnapshot(
                postId: "700", postCreatedAt: Self.post(700).createdAt, neighbors: .init(below: ["699", "698"]),
                savedAt: Date().addingTimeInterval(1)), scope: StoreScope(), device: "phone",
            at: Date().addingTimeInterval(1))
        let gone = try await engine.loadTimeline(from: source)
        #expect(gone.reach?.outcome == .gone)
        #expect(gone.reach?.requests.last?.request.description == "post 700")
        #expect(gone.restoration?.postId == "699")
    }
}

@Suite("Sync through the façade", .timeLimit(.minutes(10)))
struct FacadeSyncTests {
    /// A folder with a shared sync folder, and a configuration that syncs through it with rounds
    /// only on demand.
    static func setup() throws -> (directory: URL, shared: URL, configuration: TimelineConfiguration) {
        let directory = try Fixtures.temporaryDirectory()
        let shared = directory.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let json = #"{"Sync": {"Transport": {"Strategy": "Directory", "Path": "\#(shared.path)"}, "DebounceInterval": 3600}}"#
        return (directory, shared, ConfigurationLoader().read(data: Data(json.utf8)).configuration)
    }

    @Test("with a transport, the façade's saves become register writes and outbox entries, and syncNow sends them")
    func savesGoThroughTheOutbox() async throws {
        let (directory, shared, configuration) = try Self.setup()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        let engine = try await TimelineEngine(configuration: configuration, deviceId: "phone", store: store)
        let sync = try #require(engine.sync)
        let index = TimelineIndex(Timeline(posts: TimelineEngineTests.posts, viewportHeight: 600))
        engine.observeScroll(offset: 2010, viewportHeight: 600, in: index)
        engine.observe(.background, in: index)
        await engine.flush()
        #expect(try await store.sync.pendingWrites().count >= 1)
        #expect(
            try await store.sync.register(of: RegisterKey(account: "default", timeline: "home")).head(of: "phone")?.snapshot?.postId == "p20")
        try await sync.syncNow()
        sync.shutdown()
        #expect(try await store.sync.pendingWrites().isEmpty)
        #expect(FileManager.default.fileExists(atPath: shared.appendingPathComponent("phone.timeline-sync.json").path))
        // Without a transport (or with CrossSessionSync off) there is no sync, and saves stay local.
        let off = ConfigurationLoader().read(
            data: Data(
                #"{"PositionPersistence": {"CrossSessionSync": false}, "Sync": {"Transport": {"Strategy": "Directory", "Path": "\#(shared.path)"}}}"#
                    .utf8)
        ).configuration
        await #expect(try TimelineEngine(configuration: off, store: store).sync == nil)
    }

    @Test("another device's later position is where a restore starts, and this device's own place stays on offer")
    func continueFromAnotherDevice() async throws {
        let (directory, _, configuration) = try Self.setup()
        defer { try? FileManager.default.removeItem(at: directory) }
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let index = TimelineIndex(Timeline(posts: TimelineEngineTests.posts, viewportHeight: 600))
        // The phone read up to p20 ten minutes ago.
        let phoneStore = try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        let phoneClock = TestClock()
        phoneClock.advance(now.timeIntervalSince(phoneClock.now) - 600)
        let phone = try await TimelineEngine(configuration: configuration, deviceId: "phone", store: phoneStore, clock: { phoneClock.now })
        let sync = try #require(phone.sync)
        phone.observeScroll(offset: 2010, viewportHeight: 600, in: index)
        phone.observe(.background, in: index)
        await phone.flush()
        // The laptop went on to p30, five minutes ago, and synced.
        let laptopStore = try await TimelineStore(path: directory.appendingPathComponent("laptop.sqlite").path)
        let laptopSync = try SyncCoordinator(
            store: laptopStore, configuration: configuration, device: "laptop", now: { now.addingTimeInterval(-300) })
        try await laptopStore.sync.savePosition(
            PositionSnapshot(postId: "p30"), scope: StoreScope(), device: "laptop", at: now.addingTimeInterval(-300))
        try await laptopSync.syncNow()
        laptopSync.shutdown()
        phoneClock.advance(600)
        try await sync.syncNow()
        sync.shutdown()
        // Back on the phone after ten minutes away: the restore starts where the laptop left off
        // (the one rule, RestoreStart), and the phone's own place stays on offer.
        await #expect(phone.restoreStart(at: phoneClock.now).source == .synced)
        await #expect(phone.snapshot()?.postId == "p30")
        await #expect(phone.restore(in: index).restoration?.postId == "p30")
        let offered = await phone.suggestions(in: index)
        #expect(offered.contains { $0.postId == "p20" && $0.title == "Where you were on this device · 10 min ago" })
        #expect(offered.first?.postId == "p30")
        #expect(Set(offered.map(\.postId)).count == offered.count, "one suggestion per post")
    }

    @Test("N new above you counts what another device read: its position carries its reads, and the count leaves them out")
    func unreadAcrossDevices() async throws {
        let (directory, _, configuration) = try Self.setup()
        defer { try? FileManager.default.removeItem(at: directory) }
        let posts = TimelineEngineTests.posts.map { post in
            var written = post
            written.author = "ann"
            written.text = "\(post.text ?? "") of a long day"
            return written
        }
        let index = TimelineIndex(Timeline(posts: posts, viewportHeight: 600))
        // The phone reads p0 … p26 and goes to the background: its head carries those reads.
        let clock = TestClock()
        let phoneStore = try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        let phone = try await TimelineEngine(configuration: configuration, deviceId: "phone", store: phoneStore, clock: { clock.now })
        let phoneSync = try #require(phone.sync)
        phone.observeScroll(offset: 0, viewportHeight: 600, in: index)
        clock.advance(5)
        phone.observeScroll(offset: 2010, viewportHeight: 600, in: index)
        phone.observe(.background, in: index)
        await phone.flush()
        let head = try #require(try await phoneStore.sync.register(of: RegisterKey(account: "default", timeline: "home")).head(of: "phone"))
        #expect(head.reads.map(\.post) == posts[0...26].map { ReadPosts.digest(of: $0.id) })
        try await phoneSync.syncNow()
        phoneSync.shutdown()
        // The laptop, which read nothing, opens later on two new posts, a boost of p5, and a repeat
        // of p3 (the same author's same words) under a new id.
        clock.advance(600)
        let laptopStore = try await TimelineStore(path: directory.appendingPathComponent("laptop.sqlite").path)
        let laptop = try await TimelineEngine(configuration: configuration, deviceId: "laptop", store: laptopStore, clock: { clock.now })
        let laptopSync = try #require(laptop.sync)
        try await laptopSync.syncNow()
        laptopSync.shutdown()
        var repeated = posts[3]
        repeated.id = "p3-again"
        let fresh = [
            Post(id: "n1", createdAt: Date(timeIntervalSince1970: 1_800_000_500), text: "a brand new post here", height: 100),
            Post(id: "n2", createdAt: Date(timeIntervalSince1970: 1_800_000_400), author: "x", text: "post 5", height: 100, boostOf: "p5"),
            Post(id: "n3", createdAt: Date(timeIntervalSince1970: 1_800_000_300), text: "another new one today", height: 100),
        ]
        let grown = TimelineIndex(Timeline(posts: fresh + [repeated] + posts, viewportHeight: 600))
        let result = await laptop.restore(in: grown)
        #expect(result.restoration?.postId == "p20")
        // n1 and n3 are new; the boost of p5, the repeat of p3 and p0 … p19 were read on the phone.
        #expect(result.unreadAbove == 2)
        // What the laptop has of its own knows none of it.
        #expect(try await laptopStore.positions.readPosts(scope: StoreScope()).count == 0)
    }

    @Test("where two devices' reading diverged, the façade asks: no silent restore, and the other device's place is suggested")
    func divergenceAsks() async throws {
        let (directory, _, configuration) = try Self.setup()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await TimelineStore(path: directory.appendingPathComponent("laptop.sqlite").path)
        let engine = try await TimelineEngine(configuration: configuration, deviceId: "laptop", store: store)
        engine.sync?.shutdown()
        let posts = TimelineEngineTests.posts
        let index = TimelineIndex(Timeline(posts: posts, viewportHeight: 600))
        let now = Date()
        // The laptop read a stretch of its own to p12; the phone, not having heard of it, read
        // a stretch of its own to p30: two places, and no clock to say which came first.
        let reading = PositionRecord.Visit(seconds: 180, posts: 15)
        try await store.sync.savePosition(
            PositionSnapshot(postId: "p12", postCreatedAt: posts[12].createdAt, savedAt: now), scope: StoreScope(), device: "laptop",
            visit: reading, at: now)
        let stamp = RegisterStamp(time: HybridTimestamp(milliseconds: UInt64(now.timeIntervalSince1970 * 1000), counter: 0), device: "phone")
        let phone = PositionRecord(
            key: RegisterKey(account: "default", timeline: "home"), stamp: stamp, sequence: 9, savedAt: now,
            snapshot: PositionSnapshot(postId: "p30", postCreatedAt: posts[30].createdAt, savedAt: now), epoch: .zero,
            progress: .init(createdAt: posts[30].createdAt.timeIntervalSince1970, postId: "p30"), visit: reading,
            moves: .init(older: 12, newer: 1))
        _ = try await store.sync.applyRemote([phone], at: now, maxClockOffset: nil)
        let start = await engine.restoreStart(at: now)
        #expect(start.offer.map(\.snapshot.postId) == ["p30", "p12"])
        #expect(start.offer.map(\.device) == ["phone", "laptop"])
        let result = await engine.restore(in: index)
        #expect(result.restoration?.postId == "p30")
        #expect(!result.restoreSilently)
        #expect(result.suggestions.contains { $0.postId == "p12" && $0.title.hasPrefix("Continue from laptop") })
    }
}
