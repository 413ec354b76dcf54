import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineLRU
import TimelineEngineStore
import TimelineEngineStrategyKit
import TimelineEngineSyncModel
import TimelineEngineTTL
import TimelineEngineTestSupport

@Suite("TimelineStore", .timeLimit(.minutes(10)))
struct TimelineStoreTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let scope = StoreScope(account: "me@example.social", timeline: "home")
    static let posts = (0..<5).map {
        Post(
            id: "p\($0)", createdAt: now.addingTimeInterval(Double(-60 * $0)), author: "a\($0)", text: "post \($0) ünï 🎉", height: $0 == 2 ? nil : 120
        )
    }

    @Test("timelines, history, read posts and the last restoration survive reopening")
    func persists() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("state.sqlite").path
        do {
            let store = try await TimelineStore(path: path)
            try await store.timelines.saveTimeline(Self.posts, scope: Self.scope, viewportHeight: 800, refreshedAt: Self.now)
            try await store.positions.saveSnapshot(
                PositionSnapshot(
                    postId: "p1", viewportY: -20, contentOffset: 140, index: 1, timelineCount: 5,
                    text: "post 1", savedAt: Self.now), scope: Self.scope)
            try await store.positions.saveSnapshot(
                PositionSnapshot(postId: "p3", viewportY: 0, contentOffset: 360, savedAt: Self.now.addingTimeInterval(5)),
                scope: Self.scope)
            try await store.positions.markRead(["p0", "p1"], scope: Self.scope, at: Self.now)
            try await store.positions.saveRestoration(
                Restoration(
                    postId: "p3", index: 3, contentOffset: 360, viewportY: 0, method: .exactMatch,
                    strategy: "ExactMatch", confidence: 1, explanation: "still there"),
                scope: Self.scope, at: Self.now)
        }
        let reopened = try await TimelineStore(path: path)
        let cached = try #require(try await reopened.timelines.timeline(scope: Self.scope))
        #expect(cached.posts == Self.posts)
        #expect(cached.refreshedAt == Self.now)
        #expect(cached.viewportHeight == 800)
        #expect(try await reopened.positions.history(scope: Self.scope).map(\.postId) == ["p3", "p1"])
        #expect(try await reopened.positions.history(scope: Self.scope).last?.neighbors == PositionSnapshot.Neighbors())
        #expect(try await reopened.positions.history(scope: Self.scope).last?.text == "post 1")
        #expect(try await reopened.positions.readPostIds(scope: Self.scope).sorted() == ["p0", "p1"])
        #expect(try await reopened.positions.lastRestoration(scope: Self.scope)?.json.contains("\"postId\":\"p3\"") == true)
        #expect(try await reopened.timelines.timeline(scope: StoreScope(account: "other")) == nil)
        // WAL mode, as the store promises.
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test("a snapshot with a non-finite offset is refused with its key path, and the history keeps what it had")
    func nonFiniteSnapshot() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("finite.sqlite").path
        let store = try await TimelineStore(path: path)
        try await store.positions.saveSnapshot(PositionSnapshot(postId: "p1", viewportY: 0, contentOffset: 140, savedAt: Self.now), scope: Self.scope)
        // It was stored as "{}" before, and the history then failed to read.
        await #expect(throws: StoreError(path: path, "non-finite number nan at contentOffset has no JSON representation")) {
            try await store.positions.saveSnapshot(
                PositionSnapshot(postId: "p2", viewportY: 0, contentOffset: .nan, savedAt: Self.now), scope: Self.scope)
        }
        #expect(try await store.positions.history(scope: Self.scope).map(\.postId) == ["p1"])
    }

    @Test("a post's time reads back bit for bit, milliseconds included, so an unchanged page is not an edit")
    func exactTimes() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await TimelineStore(path: directory.appendingPathComponent("times.sqlite").path)
        // Mastodon's times always carry milliseconds. Through seconds since 1970 these two (and
        // about half of any page) came back one bit different.
        var texts = ["2026-08-01T13:55:05.955Z", "2026-08-01T13:55:05.063Z"]
        for millisecond in stride(from: 1, to: 1000, by: 7) { texts.append(String(format: "2026-08-01T13:55:04.%03dZ", millisecond)) }
        let posts = try texts.enumerated().map { index, text in
            Post(id: "t\(index)", createdAt: try #require(Timestamp.parse(text)), author: "a", text: "post \(index)")
        }
        try await store.timelines.saveTimeline(posts, scope: Self.scope, refreshedAt: Self.now)
        let cached = try #require(try await store.timelines.timeline(scope: Self.scope))
        let differing = zip(cached.posts, posts).filter {
            $0.createdAt.timeIntervalSinceReferenceDate.bitPattern != $1.createdAt.timeIntervalSinceReferenceDate.bitPattern
        }
        #expect(differing.map(\.0.id) == [])
        let merge = TimelineMerge(cached: cached.posts, fetched: posts, coverage: .head, cachedGaps: cached.gapsBelow)
        #expect(merge.updated == [])
        #expect(merge.unchanged == posts.count)
    }

    @Test("maintenance trims each table by its policy and reports what it removed")
    func maintenance() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await TimelineStore(path: directory.appendingPathComponent("m.sqlite").path)
        try await store.timelines.saveTimeline(Self.posts, scope: Self.scope, refreshedAt: Self.now.addingTimeInterval(-10 * 86_400))
        for number in 0..<6 {
            try await store.positions.saveSnapshot(
                PositionSnapshot(postId: "s\(number)", savedAt: Self.now.addingTimeInterval(Double(number))), scope: Self.scope)
        }
        try await store.positions.markRead((0..<4).map { "r\($0)" }, scope: Self.scope, at: Self.now)
        try await store.positions.markRead(["r9"], scope: Self.scope, at: Self.now.addingTimeInterval(1))
        let report = try await store.performMaintenance(
            timelinePolicy: TTLPolicy(maxAge: 7 * 86_400), historyPolicy: LRUPolicy(maxEntries: 2),
            readPostsPolicy: LRUPolicy(maxEntries: 1), now: Self.now)
        #expect(report == TimelineStore.MaintenanceReport(cachedPosts: 5, snapshots: 4, readPosts: 4))
        #expect(try await store.positions.history(scope: Self.scope).map(\.postId) == ["s5", "s4"])
        #expect(try await store.positions.readPostIds(scope: Self.scope) == ["r9"])
        #expect(try await store.timelines.timeline(scope: Self.scope)?.posts.isEmpty == true)
        // What a save carries of the reads follows what is kept of them.
        let saved = try await store.sync.savePosition(PositionSnapshot(postId: "s9"), scope: Self.scope, device: "phone", at: Self.now)
        #expect(saved.reads == [ReadDigest(post: ReadPosts.digest(of: "r9"))])
    }

    @Test("a save carries the scope's latest reads, earliest first, with their content; a post read again moves last")
    func savesCarryReads() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await TimelineStore(path: directory.appendingPathComponent("r.sqlite").path)
        let read = [
            Post(id: "a", createdAt: Self.now, author: "ann", text: "the first post of the day", height: 100),
            Post(id: "b", createdAt: Self.now, author: "bob", text: "a boost", height: 100, boostOf: "o"),
        ]
        try await store.positions.markRead(posts: read, scope: Self.scope, at: Self.now)
        try await store.positions.markRead(["c", "a"], scope: Self.scope, at: Self.now.addingTimeInterval(1))
        let saved = try await store.sync.savePosition(PositionSnapshot(postId: "c"), scope: Self.scope, device: "phone", at: Self.now)
        #expect(saved.reads.map(\.post) == ["o", "b", "c", "a"].map(ReadPosts.digest(of:)))
        // Marked again by id, "a" keeps no content; the post read with its text keeps it.
        try await store.positions.markRead(posts: [read[0]], scope: Self.scope, at: Self.now.addingTimeInterval(2))
        let again = try await store.sync.savePosition(PositionSnapshot(postId: "a"), scope: Self.scope, device: "phone", at: Self.now)
        #expect(
            again.reads.last
                == ReadDigest(
                    post: ReadPosts.digest(of: "a"), content: ReadDigest.content(author: "ann", fingerprint: ContentFingerprint(read[0].text)!)))
        // The head as stored reads back with them.
        let head = try await store.sync.register(of: RegisterKey(account: Self.scope.account, timeline: Self.scope.timeline)).head(of: "phone")
        #expect(head?.reads == again.reads)
    }

    @Test("gaps survive reopening; evicting posts from the middle leaves a gap where they were, and none below the last post")
    func gaps() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("g.sqlite").path
        do {
            let store = try await TimelineStore(path: path)
            try await store.timelines.saveTimeline(Self.posts, scope: Self.scope, refreshedAt: Self.now, gapsBelow: ["p1", "p4"])
        }
        let store = try await TimelineStore(path: path)
        let cached = try #require(try await store.timelines.storedTimeline(scope: Self.scope))
        // p4 is the last post: below it is the end of the cache, not a gap.
        #expect(cached.gaps == [TimelineGap(above: "p1", below: "p2")])
        // p3 was stored long ago: a TTL evicts it from between p2 and p4.
        try await store.timelines.saveTimeline(Self.posts, scope: Self.scope, refreshedAt: Self.now.addingTimeInterval(-86_400), gapsBelow: ["p1"])
        try await store.timelines.saveTimeline(Self.posts, scope: Self.scope, refreshedAt: Self.now, unconfirmed: ["p3"], gapsBelow: ["p1"])
        #expect(try await store.timelines.trimTimeline(scope: Self.scope, policy: TTLPolicy(maxAge: 3600), now: Self.now) == ["p3"])
        #expect(
            try await store.timelines.storedTimeline(scope: Self.scope)?.gaps == [
                TimelineGap(above: "p1", below: "p2"), TimelineGap(above: "p2", below: "p4"),
            ])
    }

    @Test("a kept index is mapped only on the revision of the posts it was made from")
    func keptIndex() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("t.sqlite").path
        let other = StoreScope(account: "me@example.social", timeline: "list")
        func isKept(_ store: TimelineStore, _ cached: TimelineStore.CachedTimeline, scope: StoreScope = Self.scope) -> Bool {
            store.timelines.index(of: cached, scope: scope).textIndexBuildNanoseconds == 0
        }
        do {
            let store = try await TimelineStore(path: path)
            try await store.timelines.saveTimeline(Self.posts, scope: Self.scope, refreshedAt: Self.now)
            try await store.timelines.saveTimeline(Self.posts, scope: other, refreshedAt: Self.now)
            let cached = try #require(try await store.timelines.timeline(scope: Self.scope))
            #expect(cached.revision != nil)
            #expect(!isKept(store, cached))
            try await store.timelines.keepIndex(store.timelines.index(of: cached, scope: Self.scope), for: cached, scope: Self.scope)
            #expect(store.timelines.indexPath(scope: Self.scope).hasPrefix(path + "-index/"))
            #expect(store.timelines.indexPath(scope: Self.scope) != store.timelines.indexPath(scope: other))
            #expect(FileManager.default.fileExists(atPath: store.timelines.indexPath(scope: Self.scope) + ".text"))
            #expect(FileManager.default.fileExists(atPath: store.timelines.indexPath(scope: Self.scope) + ".lookups"))
        }
        // Another process: the same posts, so the index is mapped and answers.
        let store = try await TimelineStore(path: path)
        let cached = try #require(try await store.timelines.timeline(scope: Self.scope))
        let index = store.timelines.index(of: cached, scope: Self.scope)
        #expect(index.textIndexBuildNanoseconds == 0)
        #expect(index.textIndex.mostSimilar(to: "post 3 ünï", threshold: 0.5).first?.text == 3)
        #expect(index.timeOrder == [4, 3, 2, 1, 0])
        #expect(index.newestIndex == 0)
        #expect(Self.posts.map { index.index(of: $0.id) } == [0, 1, 2, 3, 4])
        #expect(index.index(of: "p9") == nil)
        // The other timeline of the store has none.
        let otherCached = try #require(try await store.timelines.timeline(scope: other))
        #expect(!isKept(store, otherCached, scope: other))
        // Saving the timeline, trimming it and maintenance each make a new revision, on which
        // the kept index is not used; keeping an index for a revision that is gone writes nothing.
        try await store.timelines.saveTimeline(Self.posts, scope: Self.scope, refreshedAt: Self.now)
        let saved = try #require(try await store.timelines.timeline(scope: Self.scope))
        #expect(saved.revision != cached.revision)
        #expect(!isKept(store, saved))
        try await store.timelines.keepIndex(index, for: cached, scope: Self.scope)
        #expect(!isKept(store, saved))
        try await store.timelines.keepIndex(store.timelines.index(of: saved, scope: Self.scope), for: saved, scope: Self.scope)
        #expect(isKept(store, saved))
        #expect(try await store.timelines.trimTimeline(scope: Self.scope, policy: LRUPolicy(maxEntries: 4), now: Self.now).count == 1)
        let trimmed = try #require(try await store.timelines.timeline(scope: Self.scope))
        #expect(trimmed.revision != saved.revision)
        #expect(!isKept(store, trimmed))
        try await store.timelines.keepIndex(store.timelines.index(of: trimmed, scope: Self.scope), for: trimmed, scope: Self.scope)
        _ = try await store.performMaintenance(
            timelinePolicy: LRUPolicy(maxEntries: 3), historyPolicy: LRUPolicy(maxEntries: 9),
            readPostsPolicy: LRUPolicy(maxEntries: 9), now: Self.now)
        let maintained = try #require(try await store.timelines.timeline(scope: Self.scope))
        #expect(maintained.posts.count == 3)
        #expect(!isKept(store, maintained))
        // A damaged file is not used, and keeping the index again replaces it.
        try await store.timelines.keepIndex(store.timelines.index(of: maintained, scope: Self.scope), for: maintained, scope: Self.scope)
        try Data("damaged".utf8).write(to: URL(fileURLWithPath: store.timelines.indexPath(scope: Self.scope) + ".text"))
        try Data("damaged".utf8).write(to: URL(fileURLWithPath: store.timelines.indexPath(scope: Self.scope) + ".lookups"))
        #expect(!isKept(store, maintained))
        #expect(store.timelines.index(of: maintained, scope: Self.scope).index(of: maintained.posts[2].id) == 2)
        try await store.timelines.keepIndex(store.timelines.index(of: maintained, scope: Self.scope), for: maintained, scope: Self.scope)
        #expect(isKept(store, maintained))
    }

    @Test("updateTimeline merges into what the store holds when it writes: two updates at once keep both")
    func updateIsAtomic() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await TimelineStore(path: directory.appendingPathComponent("u.sqlite").path)
        let posts = (0..<40).map { Post(id: "p\($0)", createdAt: Self.now.addingTimeInterval(Double(-$0))) }
        await withTaskGroup(of: Void.self) { group in
            for post in posts {
                group.addTask {
                    _ = try? await store.timelines.updateTimeline(scope: Self.scope, refreshedAt: Self.now) { cached in
                        let merged = ((cached?.posts ?? []) + [post]).sorted { $0.createdAt > $1.createdAt }
                        return (TimelineCacheStore.TimelineUpdate(posts: merged), ())
                    }
                }
            }
        }
        #expect(try await store.timelines.storedTimeline(scope: Self.scope)?.posts.map(\.id) == posts.map(\.id))
    }

    @Test("evicting most of a timeline keeps exactly the posts the policy keeps; a read counts as a use of every post")
    func evictingMost() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await TimelineStore(path: directory.appendingPathComponent("s.sqlite").path)
        let posts = (0..<1000).map { Post(id: "p\($0)", createdAt: Self.now.addingTimeInterval(Double(-$0)), text: "post \($0)") }
        // Stored in three batches: p0…p399 last, so the LRU keeps the newest of them.
        try await store.timelines.saveTimeline(Array(posts[600...]), scope: Self.scope, refreshedAt: Self.now.addingTimeInterval(-300))
        try await store.timelines.saveTimeline(
            Array(posts[400...]), scope: Self.scope, refreshedAt: Self.now.addingTimeInterval(-200),
            unconfirmed: Set(posts[600...].map(\.id)))
        try await store.timelines.saveTimeline(
            posts, scope: Self.scope, refreshedAt: Self.now.addingTimeInterval(-100),
            unconfirmed: Set(posts[400...].map(\.id)))
        let evicted = try await store.timelines.trimTimeline(scope: Self.scope, policy: LRUPolicy(maxEntries: 400), now: Self.now)
        #expect(evicted.count == 600)
        #expect(
            try await store.timelines.timeline(scope: Self.scope, at: Self.now.addingTimeInterval(-50))?.posts.map(\.id) == posts[..<400].map(\.id))
        // The read used every cached post 50 s ago; a post stored since is the most recently used.
        try await store.timelines.saveTimeline(
            posts[..<400] + [Post(id: "new", createdAt: Self.now)], scope: Self.scope, refreshedAt: Self.now,
            unconfirmed: Set(posts[..<400].map(\.id)))
        let second = try await store.timelines.trimTimeline(scope: Self.scope, policy: LRUPolicy(maxEntries: 400), now: Self.now)
        #expect(second.count == 1 && second != ["new"])
    }

    @Test("a file that is not SQLite is refused and left as it is")
    func notSQLite() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("notes.sqlite").path
        let contents = Data("These are my notes, not a database.\n".utf8)
        try contents.write(to: URL(fileURLWithPath: path))
        await #expect(
            throws: StoreError(
                path: path, "not a SQLite database (it does not start with \"SQLite format 3\"); it is left as it is", kind: .notAStore)
        ) {
            try await TimelineStore(path: path)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == contents)
    }

    @Test("a damaged database is refused and left as it is")
    func damaged() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("d.sqlite").path
        do {
            let store = try await TimelineStore(path: path)
            try await store.timelines.saveTimeline(
                (0..<300).map { Post(id: "p\($0)", createdAt: Self.now, text: String(repeating: "x", count: 200)) },
                scope: Self.scope, refreshedAt: Self.now)
        }
        // Checkpoint the WAL into the main file, then overwrite pages after the header with garbage.
        do {
            let reopened = try await TimelineStore(path: path)
            _ = try await reopened.counts()
            await reopened.close()
        }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        for index in 4096..<min(bytes.count, 4096 * 3) { bytes[index] = UInt8(truncatingIfNeeded: index &* 31) }
        try? FileManager.default.removeItem(atPath: path + "-wal")
        try? FileManager.default.removeItem(atPath: path + "-shm")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var message = ""
        do {
            _ = try await TimelineStore(path: path)
        } catch {
            message = error.description
        }
        #expect(message.hasPrefix("\(path): error: "))
        #expect(message.contains("damaged") || message.contains("not a SQLite database"), "\(message)")
        let after = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let differing = zip(after, bytes).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
        let same = after.count == bytes.count && differing.isEmpty
        #expect(same, "\(after.count) vs \(bytes.count) bytes; first differing offsets \(Array(differing.prefix(8)))")
    }

    @Test("another application's SQLite database is refused and left as it is")
    func foreignDatabase() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("photos.sqlite").path
        let made = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE photo (id INTEGER)'); c.commit()", path],
            in: directory, timeout: 60)
        #expect(made.status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        await #expect(
            throws: StoreError(
                path: path, "a SQLite database of something else, not a TimelineEngine store (its tables: photo); it is left as it is",
                kind: .notAStore)
        ) {
            try await TimelineStore(path: path)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("a store from a newer version is refused")
    func newerSchema() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("n.sqlite").path
        _ = try await TimelineStore(path: path)
        let changed = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "python3", "-c",
                "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"INSERT INTO grdb_migrations VALUES ('v2-from-the-future')\"); c.commit()",
                path,
            ],
            in: directory, timeout: 60)
        #expect(changed.status == 0)
        await #expect(
            throws: StoreError(
                path: path,
                "the store was written by a newer version of TimelineEngine (its schema has changes this version does not know); it is left as it is",
                kind: .incompatible)
        ) {
            try await TimelineStore(path: path)
        }
    }

    @Test("a location that cannot be written is reported")
    func unwritable() async {
        await #expect(throws: StoreError(path: "/no/such/dir/s.sqlite", "cannot create the store: /no/such/dir does not exist", kind: .unusablePath))
        {
            try await TimelineStore(path: "/no/such/dir/s.sqlite")
        }
        var message = ""
        do {
            _ = try await TimelineStore(path: "/proc/timeline-store.sqlite")
        } catch {
            message = error.description
        }
        #expect(message.hasPrefix("/proc/timeline-store.sqlite: error: cannot"), "\(message)")
    }

    @Test("two processes opening and writing one store at once never see \"database is locked\"")
    func twoProcesses() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("shared.sqlite").path
        let count = 150
        let writers = try ["a", "b"].map { name in
            try StreamingChild(Fixtures.productsDirectory.appendingPathComponent("store-crash-writer"), [path, "reopen", "\(count)", name])
        }
        for writer in writers {
            try await writer.exit(timeout: 120)
            #expect(writer.process.terminationStatus == 0, "\(writer.standardError)")
        }
        // Every save of both processes is there.
        let history = try await TimelineStore(path: path).positions.history(scope: StoreScope(account: "crash", timeline: "home"))
        let missing = Set(["a", "b"].flatMap { name in (0..<count).map { "\(name)-\($0)" } }).subtracting(history.map(\.postId))
        #expect(missing.isEmpty, "saves lost: \(missing.sorted().prefix(10))")
    }

    @Test("a writer killed during saveTimeline, trimTimeline or performMaintenance leaves the timeline wholly one committed state")
    func killedTransactions() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("crash.sqlite").path
        let scope = StoreScope(account: "crash", timeline: "home")
        // A seeded choice of where to kill, so that a failure replays; printed with it.
        var state: UInt64 = 20_261_124
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for round in 1...6 {
            let writer = try StreamingChild(
                Fixtures.productsDirectory.appendingPathComponent("store-crash-writer"),
                [path, "timelines", "\(round * 1000)"])
            let steps = 1 + next(12)
            var last: (step: String, version: Int)?
            for _ in 0..<steps {
                guard let line = await writer.nextLine() else {
                    writer.signal(SIGKILL)
                    Issue.record(
                        "round \(round): the writer reported nothing for 30 s after \(String(describing: last)) (running: \(writer.process.isRunning); it printed: \(writer.standardError))"
                    )
                    return
                }
                let parts = line.split(separator: " ")
                last = (String(parts[0]), Int(parts[1]) ?? -1)
            }
            // Kill somewhere inside the next transaction.
            try await Task.sleep(for: .microseconds(next(20_000)))
            writer.signal(SIGKILL)
            try await writer.exit()
            // What the writer reported before it died, read to the end of its output.
            while let line = await writer.nextLine(timeout: 5) {
                let parts = line.split(separator: " ")
                if parts.count == 2, let version = Int(parts[1]) { last = (String(parts[0]), version) }
            }
            let reported = try #require(last)
            // The timeline is the state the last reported step left, or the one the next step
            // (committed, not yet reported) leaves: never a mix, never part of one.
            let posts = try #require(try await TimelineStore(path: path).timelines.timeline(scope: scope)).posts
            let versions = Set(posts.map { $0.id.split(separator: "-")[0] })
            #expect(versions.count == 1, "round \(round), killed after \(reported), seed 20261124: versions \(versions.sorted())")
            let sizes: [String: Int] = ["save": 300, "trim": 200, "maintain": 150]
            let following: [String: (String, Int)] = ["save": ("trim", 0), "trim": ("maintain", 0), "maintain": ("save", 1)]
            let (nextStep, bump) = following[reported.step]!
            let allowed = [("\(reported.version)", sizes[reported.step]!), ("\(reported.version + bump)", sizes[nextStep]!)]
            let found = (versions.first.map(String.init) ?? "", posts.count)
            #expect(allowed.contains { $0 == found }, "round \(round), killed after \(reported), seed 20261124: \(found), allowed \(allowed)")
        }
    }

    @Test("a writer killed with SIGKILL mid-burst loses nothing it committed")
    func killedWriter() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("crash.sqlite").path
        let writer = try StreamingChild(Fixtures.productsDirectory.appendingPathComponent("store-crash-writer"), [path])
        // Read reported commits until a few hundred have gone by, then kill mid-write.
        var lastReported = -1
        while lastReported < 300 {
            guard let line = await writer.nextLine() else {
                writer.signal(SIGKILL)
                Issue.record(
                    "the writer reported nothing for 30 s after commit \(lastReported) (running: \(writer.process.isRunning); it printed: \(writer.standardError))"
                )
                return
            }
            if let number = Int(line) { lastReported = number }
        }
        writer.signal(SIGKILL)
        try await writer.exit()
        #expect(writer.process.terminationReason == .uncaughtSignal)
        #expect(lastReported >= 300)
        let store = try await TimelineStore(path: path)
        let scope = StoreScope(account: "crash", timeline: "home")
        let reads = Set(try await store.positions.readPostIds(scope: scope))
        let history = Set(try await store.positions.history(scope: scope).map(\.postId))
        for number in 0...lastReported {
            #expect(reads.contains("post-\(number)") && history.contains("post-\(number)"), "write \(number) was reported committed but is gone")
        }
    }
}
