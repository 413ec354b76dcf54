import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineJSONText
import TimelineEngineLoading
import TimelineEnginePostWindow
import TimelineEngineRestoration
import TimelineEngineStore
import TimelineEngineTestSupport

/// The app's loading flows against a real Mastodon server's recorded answers (Mastodon 4.6.4,
/// recorded by Mastodon.py's test suite: `Tests/Fixtures/servers/mastodon-4.6.4`), replayed on
/// loopback: a head page and its refresh, paging down by `max_id` and up by `min_id`, looking a
/// post up, a deleted post, a boost, an edit.
@Suite("A real Mastodon server's recorded answers", .timeLimit(.minutes(10)))
struct RecordedMastodonTests {
    static let server = "mastodon-4.6.4"
    static let origin = "http://localhost:3000"
    static let tag = "/api/v1/timelines/tag/fgiztsshwiaqqiztpmmjbtvmescsculuvmgjgopwoeidbcrixp"
    static let account = "/api/v1/accounts/117020565966271181/statuses"

    struct Device {
        let directory: URL
        let store: TimelineStore
        let recorded: RecordedServer

        func load(_ path: String) async throws -> CacheFirstLoader.Report {
            let loader = CacheFirstLoader(
                store: store, scope: StoreScope(account: "mastodonpy_test@localhost", timeline: "tag"),
                fetcher: LoadingFixtures.fetcher(try LoadingFixtures.policy("NoRetry")),
                pipeline: try PipelineBuilder().build(), cachePolicy: try CachePolicyBuilder().timelineCache(),
                reach: PostWindowReach())
            return try await loader.load(from: .mastodon(recorded.url(path), tokenVariable: "TEST_TOKEN"))
        }
    }

    static func device(_ names: [String]) async throws -> Device {
        let directory = try Fixtures.temporaryDirectory()
        let recorded = try RecordedServer(try RecordedServer.exchanges(server: server, names), recordedOrigin: origin)
        return Device(
            directory: directory, store: try await TimelineStore(path: directory.appendingPathComponent("device.sqlite").path), recorded: recorded)
    }

    /// The ids of a recorded answer's statuses, in order.
    static func ids(_ answer: String) throws -> [String] {
        let statuses = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [[String: Any]])
        return statuses.compactMap { $0["id"] as? String }
    }

    @Test("a head page refreshed unchanged reports nothing edited, and every millisecond time reads back as the server wrote it")
    func refreshUnchanged() async throws {
        let device = try await Self.device(["test_fetch_remaining"])
        defer {
            device.recorded.stop()
            try? FileManager.default.removeItem(at: device.directory)
        }
        let first = try await device.load(Self.tag + "?limit=10")
        #expect(first.merge?.added.count == 10)
        let again = try await device.load(Self.tag + "?limit=10")
        #expect(again.merge?.added == [])
        #expect(again.merge?.updated == [])
        #expect(again.merge?.unchanged == 10)
        let cached = try await #require(
            try device.store.timelines.storedTimeline(scope: StoreScope(account: "mastodonpy_test@localhost", timeline: "tag")))
        #expect(cached.posts.first?.id == "117020581413876942")
        #expect(cached.posts.first?.createdAt == Timestamp.parse("2026-08-01T13:52:47.767Z"))
        #expect(cached.posts.first.map { Timestamp.format($0.createdAt) } == "2026-08-01T13:52:47.767Z")
    }

    @Test("pages asked with max_id of the last post go on below it with no gap, to the empty page at the end")
    func pagingDown() async throws {
        let device = try await Self.device(["test_fetch_remaining"])
        defer {
            device.recorded.stop()
            try? FileManager.default.removeItem(at: device.directory)
        }
        var report = try await device.load(Self.tag + "?limit=10")
        // Each page's Link rel="next" asks max_id of its last post: the next page sits right below it.
        for _ in 0..<3 {
            let last = try #require(report.timeline.posts.last?.id)
            report = try await device.load(Self.tag + "?limit=10&max_id=\(last)")
        }
        #expect(report.timeline.posts.count == 30)
        #expect(report.gaps == [])
        #expect(report.merge?.removed == [])
        #expect(device.recorded.requests.count == 4)
    }

    @Test("a page asked with min_id is contiguous with that post: no gap between it and the page below")
    func pagingUp() async throws {
        let device = try await Self.device(["test_fetch_next_previous"])
        defer {
            device.recorded.stop()
            try? FileManager.default.removeItem(at: device.directory)
        }
        let exchanges = try RecordedServer.exchanges(server: Self.server, ["test_fetch_next_previous"])
        let lower = try #require(exchanges.first { $0.url.query == "limit=5&max_id=117020580489281910" })
        let upper = try #require(exchanges.first { $0.url.query == "limit=5&min_id=117020580481736214" })
        let below = try await device.load(Self.account + "?limit=5&max_id=117020580489281910")
        #expect(below.timeline.posts.map(\.id) == (try Self.ids(lower.body)))
        let both = try await device.load(Self.account + "?limit=5&min_id=117020580481736214")
        #expect(both.timeline.posts.map(\.id) == (try Self.ids(upper.body)) + (try Self.ids(lower.body)))
        #expect(both.gaps == [])
    }

    @Test("a status looked up by id is a post; Mastodon's JSON 404 says a post does not exist")
    func lookups() async throws {
        let exchanges = try RecordedServer.exchanges(server: Self.server, ["test_status", "test_status_missing"])
        let recorded = try RecordedServer(exchanges, recordedOrigin: Self.origin)
        defer { recorded.stop() }
        let fetcher = LoadingFixtures.fetcher(try LoadingFixtures.policy("NoRetry"))
        let source = TimelineSource.mastodon(recorded.url(Self.tag + "?limit=10"), tokenVariable: "TEST_TOKEN")
        let made = HTTPPageSource(source, fetcher: fetcher)
        let pages = try #require(made)
        let found = await pages.answer(.post("117020583223442465")).answer
        let post = try #require(try found.get().posts.first)
        #expect(post.id == "117020583223442465")
        #expect(try found.get().found)
        let missing = await pages.answer(.post("0")).answer
        #expect(try missing.get().found == false)
        #expect(try missing.get().posts.isEmpty)
    }

    @Test("a boost is its own post: its own id and time, the booster as author, the boosted status's text")
    func boost() throws {
        let exchanges = try RecordedServer.exchanges(server: Self.server, ["test_status_reblog_unreblog"])
        let reblog = try #require(exchanges.first { $0.method == "POST" && $0.url.path.hasSuffix("/reblog") })
        let status = try JSONReader().read(Data(reblog.body.utf8))
        let post = try MastodonTimeline.post(from: status)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(reblog.body.utf8)) as? [String: Any])
        let original = try #require(object["reblog"] as? [String: Any])
        #expect(post.id == object["id"] as? String)
        #expect(post.id != original["id"] as? String)
        #expect(post.createdAt == Timestamp.parse(object["created_at"] as! String))
        #expect(post.author == (object["account"] as? [String: Any])?["acct"] as? String)
        #expect(post.text?.isEmpty == false)
    }
}
