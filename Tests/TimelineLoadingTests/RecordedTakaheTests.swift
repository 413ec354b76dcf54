import Foundation
import Testing
import TimelineEngineCausalFurthest
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineLoading
import TimelineEnginePostWindow
import TimelineEngineReachModel
import TimelineEngineRestoration
import TimelineEngineRestorationModel
import TimelineEngineStore
import TimelineEngineSyncModel
import TimelineEngineTestSupport

/// The app's loading flows against a real Mastodon-API server of another implementation: Takahē
/// 0.11.0 on loopback, 1,000 real posts of seven followed accounts with boosts and content
/// warnings (`Tests/Fixtures/servers/takahe`, recorded by `record.py`). It departs from
/// Mastodon where a client must cope: a boost's own id is not found by `statuses/:id`, a 404 is
/// an HTML page, there are no markers and no rate-limit headers.
@Suite("A Takahē server's recorded answers", .timeLimit(.minutes(10)))
struct RecordedTakaheTests {
    static let origin = "http://127.0.0.1:8000"
    static let home = "/api/v1/timelines/home"
    static let scope = StoreScope(account: "reader@takahe.local", timeline: "home")
    /// The head page's last post, the second page's first.
    static let headLast = "648965384161696905"
    /// A boost in the third page, and the post its page above ends with.
    static let boost = "648965361228153081"
    /// A post in the second page that its author deletes during the recording, the post above it,
    /// and the post below it that survives.
    static let deleted = "648965374009610680", aboveDeleted = "648965374783533360", belowDeleted = "648965373645176160"

    struct Laptop {
        let directory: URL
        let store: TimelineStore
        let recorded: RecordedServer

        func load(_ query: String) async throws -> CacheFirstLoader.Report {
            let loader = CacheFirstLoader(
                store: store, scope: RecordedTakaheTests.scope,
                fetcher: LoadingFixtures.fetcher(try LoadingFixtures.policy("NoRetry")),
                pipeline: try PipelineBuilder().build(), cachePolicy: try CachePolicyBuilder().timelineCache(),
                reach: PostWindowReach(), sync: CacheFirstLoader.SyncView(policy: CausalFurthestPolicy(), device: "laptop"))
            return try await loader.load(from: .mastodon(recorded.url(RecordedTakaheTests.home + query), tokenVariable: "TEST_TOKEN"))
        }

        /// The phone's position on `post`, an id alone (as a read marker carries it), synced here.
        func phoneSaves(_ post: String) async throws {
            try await store.sync.savePosition(PositionSnapshot(postId: post), scope: RecordedTakaheTests.scope, device: "phone", at: Date())
        }

        func stop() {
            recorded.stop()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    static func laptop() async throws -> Laptop {
        let directory = try Fixtures.temporaryDirectory()
        let recorded = try RecordedServer(try RecordedServer.exchanges(server: "takahe", ["home"]), recordedOrigin: origin)
        return Laptop(
            directory: directory, store: try await TimelineStore(path: directory.appendingPathComponent("laptop.sqlite").path), recorded: recorded)
    }

    @Test("a head page refreshed unchanged reports nothing edited")
    func refreshUnchanged() async throws {
        let laptop = try await Self.laptop()
        defer { laptop.stop() }
        let first = try await laptop.load("?limit=40")
        #expect(first.merge?.added.count == 40)
        #expect(first.timeline.posts.last?.id == Self.headLast)
        let again = try await laptop.load("?limit=40")
        #expect(again.merge?.added == [])
        #expect(again.merge?.updated == [])
        #expect(again.merge?.unchanged == 40)
    }

    @Test("pages down by max_id, the page above one by min_id and one since an id are contiguous: no gap anywhere")
    func paging() async throws {
        let laptop = try await Self.laptop()
        defer { laptop.stop() }
        // The second page first, then the page above it (min_id of its first post): the head page.
        let second = try await laptop.load("?limit=40&max_id=\(Self.headLast)")
        let above = try await laptop.load("?limit=40&min_id=\(try #require(second.timeline.posts.first?.id))")
        #expect(above.timeline.posts.count == 80)
        #expect(above.gaps == [])
        // A page since the head page's eleventh post did not fill up: it meets that post.
        let since = try await laptop.load("?limit=40&since_id=648965396991449400")
        #expect(since.merge?.added == [])
        #expect(since.gaps == [])
        var report = since
        for _ in 0..<2 {
            report = try await laptop.load("?limit=40&max_id=\(try #require(report.timeline.posts.last?.id))")
        }
        #expect(report.timeline.posts.count == 160)
        #expect(report.gaps == [])
    }

    @Test("a position on a boost, whose own id Takahē does not find, is reached through the pages around it and restored on the boost")
    func boostReached() async throws {
        let laptop = try await Self.laptop()
        defer { laptop.stop() }
        _ = try await laptop.load("?limit=40")
        try await laptop.phoneSaves(Self.boost)
        let report = try await laptop.load("?limit=40")
        #expect(report.reach?.outcome == .reached)
        #expect(
            report.reach?.requests.map(\.request.description) == [
                "post \(Self.boost)", "page of 40 above \(Self.boost)", "page of 40 below 648965361654249912",
            ])
        #expect(report.reach?.findings.gone == [])
        #expect(report.restoration?.postId == Self.boost)
        #expect(report.restoration?.method == .exactMatch)
        // The HTML 404 removed nothing.
        #expect(report.timeline.posts.contains { $0.id == Self.boost })
    }

    @Test("a cached post deleted since: the HTML 404 says nothing, the pages around it say it is gone, and the reader lands on the next post")
    func deletedPost() async throws {
        let laptop = try await Self.laptop()
        defer { laptop.stop() }
        _ = try await laptop.load("?limit=40")
        let second = try await laptop.load("?limit=40&max_id=\(Self.headLast)")
        #expect(second.timeline.posts.contains { $0.id == Self.deleted })
        try await laptop.phoneSaves(Self.deleted)
        let report = try await laptop.load("?limit=40")
        #expect(report.reach?.checked == true)
        #expect(report.reach?.outcome == .gone)
        #expect(
            report.reach?.requests.map(\.request.description) == [
                "post \(Self.deleted)", "page of 40 above \(Self.deleted)", "page of 40 below \(Self.aboveDeleted)",
            ])
        #expect(report.reach?.findings == ReachFindings(gone: [Self.deleted], survivorBelow: Self.belowDeleted, survivorAbove: Self.aboveDeleted))
        #expect(!report.timeline.posts.contains { $0.id == Self.deleted })
        #expect(report.restoration?.postId == Self.belowDeleted)
    }

    @Test("a boost is its own entry: its own id, the booster as author (acct with the domain), the boosted text")
    func boostEntry() throws {
        let exchanges = try RecordedServer.exchanges(server: "takahe", ["home"])
        let head = try #require(exchanges.first { $0.url.query == "limit=40" })
        let posts = try MastodonTimeline.posts(from: try TimelineFormat.json(Data(head.body.utf8)))
        let statuses = try #require(try JSONSerialization.jsonObject(with: Data(head.body.utf8)) as? [[String: Any]])
        let index = try #require(statuses.firstIndex { $0["reblog"] is [String: Any] })
        let reblog = try #require(statuses[index]["reblog"] as? [String: Any])
        #expect(posts[index].id == statuses[index]["id"] as? String)
        #expect(posts[index].id != reblog["id"] as? String)
        #expect(posts[index].author?.hasSuffix("@takahe.local") == true)
        #expect(posts[index].text?.isEmpty == false)
        #expect((statuses[index]["content"] as? String) == "")
    }
}
