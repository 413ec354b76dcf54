import Foundation
import Testing
import TimelineEngineCausalFurthest
import TimelineEngineCore
import TimelineEngineLoading
import TimelineEnginePostWindow
import TimelineEngineReachModel
import TimelineEngineRestoration
import TimelineEngineRestorationModel
import TimelineEngineStore
import TimelineEngineSyncModel
import TimelineEngineTestSupport

/// Reaching a post the cache lacks, against Mastodon- and Bluesky-shaped servers on loopback: the
/// laptop case (yesterday's cache, today's head page, a position synced from the phone in the
/// posts between), a deleted post, a post beyond the budget, a rate limit, a server that fails,
/// and two loads at once.
@Suite("Reaching a post across a gap", .timeLimit(.minutes(10)))
struct ReachTests {
    static let scope = StoreScope(account: "reader@mastodon.example", timeline: "home")
    static let base = Date(timeIntervalSince1970: 1_700_000_000)

    /// Post `n` (1 the oldest): id "n", written n minutes after the first.
    static func post(_ n: Int) -> Post {
        Post(id: "\(n)", createdAt: base.addingTimeInterval(Double(60 * n)), author: "author\(n % 9)", text: "post number \(n) of the feed")
    }

    /// The feed with posts `count` down to 1, newest first.
    static func feed(_ count: Int) -> [Post] { (1...count).reversed().map(post) }

    /// A saved position on post `n`, as the phone saved it.
    static func snapshot(_ n: Int) -> PositionSnapshot {
        PositionSnapshot(
            postId: "\(n)", postCreatedAt: post(n).createdAt, viewportY: -12, contentOffset: 4000,
            neighbors: .init(above: ["\(n + 1)", "\(n + 2)"], below: ["\(n - 1)", "\(n - 2)"]), text: post(n).text,
            author: post(n).author, savedAt: base.addingTimeInterval(86_400))
    }

    struct Setup {
        let directory: URL
        let store: TimelineStore
        let server: FakeTimelineServer

        func loader(reach: any ReachStrategy = PostWindowReach(), policy: any NetworkPolicy = try! LoadingFixtures.policy("NoRetry")) throws
            -> CacheFirstLoader
        {
            CacheFirstLoader(
                store: store, scope: ReachTests.scope, fetcher: LoadingFixtures.fetcher(policy),
                pipeline: try PipelineBuilder().build(), cachePolicy: try CachePolicyBuilder().timelineCache(), reach: reach,
                sync: CacheFirstLoader.SyncView(policy: CausalFurthestPolicy(), device: "laptop"))
        }

        var source: TimelineSource {
            server.isMastodon ? .mastodon(server.timelineURL, tokenVariable: "TEST_TOKEN") : .bluesky(server.timelineURL, tokenVariable: "TEST_TOKEN")
        }
    }

    /// The laptop's store: the head page it cached yesterday when the feed had 600 posts, and the
    /// phone's position on `target`, synced; the server now has 1,000 posts.
    static func laptop(mastodon: Bool, target: Int = 800, cursors: FeedCursors = .opaque) async throws -> Setup {
        let directory = try Fixtures.temporaryDirectory()
        let store = try await TimelineStore(path: directory.appendingPathComponent("laptop.sqlite").path)
        let server = try FakeTimelineServer(mastodon: mastodon, posts: feed(600), cursors: cursors)
        let setup = Setup(directory: directory, store: store, server: server)
        _ = try await setup.loader().load(from: setup.source)
        server.change { $0.insert((601...1000).reversed().map(post)) }
        try await store.sync.savePosition(snapshot(target), scope: scope, device: "phone", at: base.addingTimeInterval(86_400))
        return setup
    }

    @Test(
        "a fetch whose limit is more than one page of the API pages until its limit, contiguous, each request within the API's page",
        arguments: [true, false])
    func fetchPagesUntilLimit(mastodon: Bool) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await TimelineStore(path: directory.appendingPathComponent("device.sqlite").path)
        let server = try FakeTimelineServer(mastodon: mastodon, posts: Self.feed(600))
        let setup = Setup(directory: directory, store: store, server: server)
        let url = URL(string: server.timelineURL.absoluteString.replacingOccurrences(of: "limit=40", with: "limit=250"))!
        let source: TimelineSource = mastodon ? .mastodon(url, tokenVariable: "TEST_TOKEN") : .bluesky(url, tokenVariable: "TEST_TOKEN")
        let report = try await setup.loader().load(from: source)
        #expect(report.timeline.posts.map(\.id) == (351...600).reversed().map(String.init))
        #expect(report.gaps == [])
        let limits = server.requests.compactMap { URLComponents(string: "http://h" + $0)?.queryItems?.first { $0.name == "limit" }?.value }
        #expect(limits == (mastodon ? ["40", "40", "40", "40", "40", "40", "10"] : ["100", "100", "50"]))
        // Each page continues below the last one.
        let continued = server.requests.dropFirst().allSatisfy { $0.contains(mastodon ? "max_id=" : "cursor=") }
        #expect(continued)
        // A limit within one page is one request, as asked.
        let before = server.requests.count
        _ = try await setup.loader().load(from: setup.source)
        #expect(server.requests.count == before + 1)
    }

    @Test("Mastodon: the synced post 360 posts below the head page is reached in two requests, and the reader lands on it")
    func mastodonLaptop() async throws {
        let setup = try await Self.laptop(mastodon: true)
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let before = setup.server.requests.count
        let report = try await setup.loader().load(from: setup.source)
        #expect(report.start?.source == .synced)
        #expect(report.start?.device == "phone")
        #expect(report.reach?.outcome == .reached)
        #expect(report.reach?.requestCount == 2)
        #expect(
            Array(setup.server.requests[before...]) == [
                "/api/v1/timelines/home?limit=40", "/api/v1/statuses/800",
                "/api/v1/timelines/home?max_id=800&limit=40",
            ])
        #expect(report.restoration?.postId == "800")
        #expect(report.restoration?.method == .exactMatch)
        #expect(report.gaps == [TimelineGap(above: "961", below: "800"), TimelineGap(above: "760", below: "600")])
        let cached = try await #require(try setup.store.timelines.storedTimeline(scope: Self.scope))
        #expect(cached.posts.count == 40 + 41 + 40)
        #expect(cached.gaps == report.gaps)
    }

    @Test("Mastodon: a cached post the refresh did not reach is checked with one lookup; deleted since, it leaves the cache")
    func cachedPostChecked() async throws {
        let setup = try await Self.laptop(mastodon: true)
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        _ = try await setup.loader().load(from: setup.source)
        // The phone moves on to 790, in the window the laptop cached around 800.
        try await setup.store.sync.savePosition(Self.snapshot(790), scope: Self.scope, device: "phone", at: Self.base.addingTimeInterval(90_000))
        let checked = try await setup.loader().load(from: setup.source)
        #expect(checked.reach?.checked == true)
        #expect(checked.reach?.outcome == .reached)
        #expect(checked.reach?.requests.map(\.request.description) == ["post 790"])
        #expect(checked.restoration?.postId == "790")
        // Then 790 is deleted on the server: the lookup says so, the page below it says which
        // post follows it now, and the restore goes there.
        setup.server.change { $0.delete(["790"]) }
        let gone = try await setup.loader().load(from: setup.source)
        #expect(gone.reach?.outcome == .gone)
        #expect(gone.reach?.requests.map(\.request.description) == ["post 790", "page of 40 below 790"])
        #expect(gone.reach?.findings == ReachFindings(gone: ["790"], survivorBelow: "789"))
        #expect(!gone.timeline.posts.contains { $0.id == "790" })
        #expect(gone.restoration?.postId == "789")
    }

    @Test("a cached neighbour the server deleted too is no landing: the reader goes to the next post that survives", arguments: [true, false])
    func ghostNeighbours(mastodon: Bool) async throws {
        let setup = try await Self.laptop(mastodon: mastodon)
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        _ = try await setup.loader().load(from: setup.source)
        // The laptop cached the window around 800; the phone moves on to 790, in it.
        try await setup.store.sync.savePosition(Self.snapshot(790), scope: Self.scope, device: "phone", at: Self.base.addingTimeInterval(90_000))
        #expect(try await setup.loader().load(from: setup.source).restoration?.postId == "790")
        // 790 and the post below it, 789, are deleted on the server; the laptop still caches 789.
        setup.server.change { $0.delete(["790", "789"]) }
        let report = try await setup.loader().load(from: setup.source)
        #expect(report.reach?.outcome == .gone)
        #expect(report.restoration?.postId == "788")
        #expect(!report.timeline.posts.contains { $0.id == "789" })
        if mastodon {
            // The page below 790 begins with 788, and meets the cache there: 789 between them is gone.
            #expect(report.reach?.requests.map(\.request.description) == ["post 790", "page of 40 below 790"])
            #expect(report.reach?.findings == ReachFindings(gone: ["790"], survivorBelow: "788"))
        } else {
            // Pages come only from the top: the neighbours that would stand in are looked up in turn.
            #expect(report.reach?.requests.map(\.request.description) == ["post 790", "post 789", "post 788"])
            #expect(report.reach?.findings == ReachFindings(gone: ["790", "789"]))
        }
    }

    @Test("Mastodon: a deleted post is reported gone, and the reader goes to the next surviving post below it")
    func mastodonDeleted() async throws {
        let setup = try await Self.laptop(mastodon: true)
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        setup.server.change { $0.delete(["800"]) }
        let report = try await setup.loader().load(from: setup.source)
        #expect(report.reach?.outcome == .gone)
        #expect(report.reach?.requestCount == 2)
        #expect(report.restoration?.postId == "799")
    }

    @Test("Bluesky: pages from the top reach the synced post; a post beyond the budget is named, and the gap kept")
    func bluesky() async throws {
        let setup = try await Self.laptop(mastodon: false)
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let report = try await setup.loader().load(from: setup.source)
        #expect(report.reach?.outcome == .reached)
        // Pages of 100 after the head page's 40 (1000…961): 960…861, 860…761, and the post.
        #expect(report.reach?.requestCount == 2)
        #expect(report.restoration?.postId == "800")
        #expect(report.gaps == [TimelineGap(above: "761", below: "600")])

        let far = try await Self.laptop(mastodon: false, target: 650)
        defer { try? FileManager.default.removeItem(at: far.directory) }
        let limited = try await far.loader(reach: PostWindowReach(pageSize: 100, maxRequests: 3)).load(from: far.source)
        #expect(limited.reach?.outcome == .unreached)
        #expect(
            limited.reach?.requests.map(\.request.description) == [
                "page of 100 from the top after i:40", "page of 100 from the top after i:140",
                "post 650",
            ])
        #expect(limited.gaps == [TimelineGap(above: "761", below: "600")])
        #expect(limited.restoration != nil)
    }

    @Test("Bluesky with the AppView's time-keyed cursors: one page, asked at the post's time, reaches it; a deleted one takes a lookup more")
    func blueskyByTime() async throws {
        let setup = try await Self.laptop(mastodon: false, cursors: .timeKeyed)
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let before = setup.server.requests.count
        let report = try await setup.loader().load(from: setup.source)
        #expect(report.reach?.outcome == .reached)
        #expect(report.reach?.requestCount == 1)
        // Post 800's time and three minutes (the head page's posts are a minute apart).
        let cursor = "1700048180000__bafyrei"
        #expect(report.reach?.requests.first?.request.description.hasPrefix("page of 100 from the time cursor \(cursor)") == true)
        #expect(setup.server.requests[before + 1].hasPrefix("/xrpc/app.bsky.feed.getTimeline?cursor=\(cursor)"))
        #expect(report.restoration?.postId == "800")
        #expect(report.gaps.first?.above == "961")
        #expect(report.gaps.count == 2)

        let gone = try await Self.laptop(mastodon: false, cursors: .timeKeyed)
        defer { try? FileManager.default.removeItem(at: gone.directory) }
        gone.server.change { $0.delete(["800"]) }
        let deleted = try await gone.loader().load(from: gone.source)
        #expect(deleted.reach?.outcome == .gone)
        #expect(
            deleted.reach?.requests.map { $0.request.description.components(separatedBy: " 17").first! } == [
                "page of 100 from the time cursor", "post 800",
            ])
        #expect(deleted.reach?.findings.survivorBelow == "799")
        #expect(deleted.restoration?.postId == "799")
    }

    @Test(
        "Bluesky, a deleted post given by its id alone (a synced marker): its record key's time asks the page at that time, and the reader lands next to it"
    )
    func blueskyIdAlone() async throws {
        // Posts whose ids are at:// URIs with the TIDs of their times, as Bluesky's are.
        func tid(_ date: Date) -> String {
            let alphabet = Array("234567abcdefghijklmnopqrstuvwxyz")
            var value = UInt64(date.timeIntervalSince1970 * 1_000_000) << 10
            var digits: [Character] = []
            for _ in 0..<13 {
                digits.append(alphabet[Int(value & 31)])
                value >>= 5
            }
            return String(digits.reversed())
        }
        func post(_ n: Int) -> Post {
            let plain = Self.post(n)
            return Post(
                id: "at://did:plc:reader/app.bsky.feed.post/\(tid(plain.createdAt))", createdAt: plain.createdAt, author: plain.author,
                text: plain.text)
        }
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await TimelineStore(path: directory.appendingPathComponent("laptop.sqlite").path)
        let server = try FakeTimelineServer(mastodon: false, posts: (1...600).reversed().map(post), cursors: .timeKeyed)
        let setup = Setup(directory: directory, store: store, server: server)
        _ = try await setup.loader().load(from: setup.source)
        server.change { $0.insert((601...1000).reversed().map(post)) }
        server.change { $0.delete([post(800).id]) }
        #expect(TimestampIdentifier.creationTime(ofPostId: post(800).id) == post(800).createdAt)
        try await store.sync.savePosition(
            PositionSnapshot(postId: post(800).id, savedAt: Self.base.addingTimeInterval(86_400)), scope: Self.scope, device: "phone",
            at: Self.base.addingTimeInterval(86_400))
        let report = try await setup.loader().load(from: setup.source)
        #expect(report.reach?.outcome == .gone)
        #expect(report.reach?.requests.first?.request.description.hasPrefix("page of 100 from the time cursor") == true)
        #expect(report.reach?.findings.survivorBelow == post(799).id)
        #expect(report.restoration?.postId == post(799).id)
    }

    @Test("Bluesky, a server that takes only its own cursors: its 400 sets the page by time aside, and pages from the top reach the post")
    func blueskyRefusesTime() async throws {
        let setup = try await Self.laptop(mastodon: false, cursors: .issuedOnly)
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let report = try await setup.loader().load(from: setup.source)
        #expect(report.reach?.outcome == .reached)
        #expect(report.reach?.requests.map(\.posts) == [0, 100, 100])
        #expect(report.reach?.requests.map(\.failure) == [nil, nil, nil])
        #expect(report.reach?.requests.dropFirst().allSatisfy { $0.request.description.hasPrefix("page of 100 from the top after ") } == true)
        #expect(report.restoration?.postId == "800")
        #expect(report.gaps == [TimelineGap(above: "761", below: "600")])
    }

    @Test("Mastodon: a lookup whose answer says the rate limit is spent stops the reach: the page below is not asked")
    func lookupSpendsTheLimit() async throws {
        let setup = try await Self.laptop(mastodon: true)
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        // Only the lookups' answers say the limit is spent: the refresh goes through.
        setup.server.spendRateLimit(on: "post")
        let before = setup.server.requests.count
        let report = try await setup.loader().load(from: setup.source)
        #expect(Array(setup.server.requests[before...]) == ["/api/v1/timelines/home?limit=40", "/api/v1/statuses/800"])
        #expect(report.reach?.requests.map(\.request.description) == ["post 800", "page of 40 below 800"])
        #expect(report.reach?.requests.last?.failure?.contains("the server's rate limit is spent until") == true)
        #expect(report.reach?.requests.last?.attempts == 0)
    }

    @Test("a page whose answer says the rate limit is spent stops the next request, on each API", arguments: [true, false])
    func pageSpendsTheLimit(mastodon: Bool) async throws {
        let server = try FakeTimelineServer(mastodon: mastodon, posts: Self.feed(600))
        server.spendRateLimit(on: "timeline")
        let source: TimelineSource =
            mastodon
            ? .mastodon(server.timelineURL, tokenVariable: "TEST_TOKEN")
            : .bluesky(server.timelineURL, tokenVariable: "TEST_TOKEN")
        let made = HTTPPageSource(source, fetcher: LoadingFixtures.fetcher(try LoadingFixtures.policy("NoRetry")))
        let pages = try #require(made)
        let request: PageRequest = mastodon ? .below(post: "500", limit: 40) : .top(cursor: "i:40", limit: 100)
        let first = await pages.answer(request)
        #expect((try? first.answer.get().posts.count) == (mastodon ? 40 : 100))
        let second = await pages.answer(request)
        guard case .failure(let error) = second.answer else {
            Issue.record("asked again though the limit was spent")
            return
        }
        #expect(error.message.hasPrefix("the server's rate limit is spent until "))
        #expect(second.attempts.isEmpty)
        #expect(server.requests.count == 1)
    }

    @Test("a spent rate limit stops the reach before it asks; a failing server leaves the cache as the refresh left it")
    func failures() async throws {
        let setup = try await Self.laptop(mastodon: true)
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        setup.server.spendRateLimit()
        let before = setup.server.requests.count
        let limited = try await setup.loader().load(from: setup.source)
        #expect(setup.server.requests.count == before + 1)
        guard case .failed(let message) = limited.reach?.outcome else {
            Issue.record("not failed: \(String(describing: limited.reach?.outcome))")
            return
        }
        #expect(message.hasPrefix("\(setup.server.server.baseURL)/api/v1/statuses/800: error: the server's rate limit is spent until "))
        #expect(message.hasSuffix("; not asked"))
        #expect(limited.timeline.posts.count == 80)
        #expect(limited.restoration != nil)

        let down = try await Self.laptop(mastodon: true)
        defer { try? FileManager.default.removeItem(at: down.directory) }
        down.server.inject("post", [.json(Data(#"{"error":"maintenance"}"#.utf8), status: 503)])
        let failed = try await down.loader().load(from: down.source)
        #expect(failed.reach?.outcome == .failed("\(down.server.server.baseURL)/api/v1/statuses/800: error: HTTP 503: maintenance"))
        let head: [String] = (961...1000).reversed().map { "\($0)" }
        let yesterday: [String] = (561...600).reversed().map { "\($0)" }
        #expect(failed.timeline.posts.map(\.id) == head + yesterday)
        #expect(failed.gaps == [TimelineGap(above: "961", below: "600")])
    }

    @Test("Mastodon: pages both ways by id (max_id, min_id), and a later reach closes the gap below its window")
    func pagingAndClosing() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try FakeTimelineServer(mastodon: true, posts: Self.feed(700))
        let pages = try #require(
            HTTPPageSource(
                .mastodon(server.timelineURL, tokenVariable: "TEST_TOKEN"),
                fetcher: LoadingFixtures.fetcher(try LoadingFixtures.policy("NoRetry"))))
        let below = await pages.answer(.below(post: "650", limit: 3))
        #expect(try below.answer.get().posts.map(\.id) == ["649", "648", "647"])
        #expect(below.url.absoluteString == server.timelineURL.absoluteString.replacingOccurrences(of: "?limit=40", with: "?max_id=650&limit=3"))
        let above = await pages.answer(.above(post: "650", limit: 3))
        #expect(try above.answer.get().posts.map(\.id) == ["653", "652", "651"])
        #expect(above.url.query == "min_id=650&limit=3")

        // Yesterday's cache 600…561; today 700 posts: the head page leaves a gap above 600.
        let store = try await TimelineStore(path: directory.appendingPathComponent("s.sqlite").path)
        let setup = Setup(directory: directory, store: store, server: server)
        server.change { $0 = .mastodon(Self.feed(600)) }
        _ = try await setup.loader().load(from: setup.source)
        server.change { $0 = .mastodon(Self.feed(700)) }
        let first = try await setup.loader().load(from: setup.source)
        #expect(first.gaps == [TimelineGap(above: "661", below: "600")])
        // The phone synced post 640: its window, 640…601, meets the cached 600: that gap closes.
        try await store.sync.savePosition(Self.snapshot(640), scope: Self.scope, device: "phone", at: Self.base.addingTimeInterval(90_000))
        let second = try await setup.loader().load(from: setup.source)
        #expect(second.reach?.outcome == .reached)
        #expect(second.gaps == [TimelineGap(above: "661", below: "640")])
    }

    @Test("a 429 with Retry-After during a reach is waited out when the network policy retries, and reported when it does not")
    func rateLimited() async throws {
        let setup = try await Self.laptop(mastodon: true)
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let busy = LoopbackHTTPServer.Answer(
            status: 429, headers: [("Content-Type", "application/json"), ("Retry-After", "1")],
            body: Data(#"{"error":"Too many requests"}"#.utf8))
        setup.server.inject("post", [busy])
        let stopped = try await setup.loader().load(from: setup.source)
        #expect(
            stopped.reach?.outcome
                == .failed("\(setup.server.server.baseURL)/api/v1/statuses/800: error: HTTP 429: Too many requests (the server asks to wait 1 s)"))
        setup.server.inject("post", [busy])
        let backoff = try LoadingFixtures.policy("ExponentialBackoff", ["MaxAttempts": 3, "BaseDelay": 0.1, "MaxDelay": 5])
        let waited = try await setup.loader(policy: backoff).load(from: setup.source)
        #expect(waited.reach?.outcome == .reached)
        #expect(waited.reach?.requestCount == 3)
        #expect(waited.restoration?.postId == "800")
    }

    @Test("two loads at once on one store keep both windows")
    func concurrentLoads() async throws {
        let setup = try await Self.laptop(mastodon: true)
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let other = try await TimelineStore(path: setup.store.path)
        try await other.positions.saveSnapshot(Self.snapshot(700), scope: Self.scope)
        let first = try setup.loader()
        let second = CacheFirstLoader(
            store: other, scope: Self.scope, fetcher: first.fetcher, pipeline: first.pipeline, cachePolicy: first.cachePolicy,
            reach: PostWindowReach(), sync: nil)
        async let a = first.load(from: setup.source)
        async let b = second.load(from: setup.source)
        _ = try await (a, b)
        let ids = Set(try await #require(try setup.store.timelines.storedTimeline(scope: Self.scope)).posts.map(\.id))
        #expect(ids.isSuperset(of: ["800", "760", "700", "660", "1000", "561"]))
    }
}
