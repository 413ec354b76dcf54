import Foundation
import Testing
import TimelineEngineCacheModel
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineLoading
import TimelineEngineReachModel
import TimelineEngineRestoration
import TimelineEngineRestorationModel
import TimelineEngineStore
import TimelineEngineTestSupport

/// Cache-first loading with a real SQLite store and the loopback server, for both API shapes.
@Suite("Cache-first loading", .timeLimit(.minutes(10)))
struct CacheFirstLoaderTests {
    static let scope = StoreScope(account: "reader@mastodon.example", timeline: "home")

    struct Setup {
        let directory: URL
        let store: TimelineStore
        let server: LoopbackHTTPServer

        func loader(
            _ policy: any NetworkPolicy, cachePolicy: any CachePolicy = try! CachePolicyBuilder().timelineCache(),
            now: Date = Date()
        ) throws -> CacheFirstLoader {
            CacheFirstLoader(
                store: store, scope: CacheFirstLoaderTests.scope, fetcher: LoadingFixtures.fetcher(policy, timeout: Deadline.scaled(2)),
                pipeline: try PipelineBuilder().build(), cachePolicy: cachePolicy, now: { now })
        }
    }

    static func setup() async throws -> Setup {
        let directory = try Fixtures.temporaryDirectory()
        return Setup(
            directory: directory, store: try await TimelineStore(path: directory.appendingPathComponent("state.sqlite").path),
            server: try LoopbackHTTPServer())
    }

    @Test("Mastodon: the cache first, then the refresh merged, stored and reported; the reader is put back", arguments: ["mastodon", "bluesky"])
    func refresh(_ api: String) async throws {
        let setup = try await Self.setup()
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let (path, first, second) =
            api == "mastodon"
            ? (LoadingFixtures.mastodonPath, "mastodon-home.json", "mastodon-home-refreshed.json")
            : (LoadingFixtures.blueskyPath, "bluesky-timeline.json", "bluesky-timeline-refreshed.json")
        let source = api == "mastodon" ? LoadingFixtures.mastodon(setup.server) : LoadingFixtures.bluesky(setup.server)
        setup.server.script(path, [.json(try LoadingFixtures.answer(first)), .json(try LoadingFixtures.answer(second))])
        let loader = try setup.loader(try LoadingFixtures.policy("NoRetry"))

        // First launch: nothing cached; the page becomes the cache.
        let initial = try await loader.load(from: source)
        #expect(initial.cached == nil)
        #expect(initial.status == .fresh)
        #expect(initial.merge?.added.count == 40)
        let firstPosts = initial.timeline.posts
        #expect(try await setup.store.timelines.timeline(scope: Self.scope)?.posts == firstPosts)

        // The reader was on the seventh post, which the refreshed answer has deleted.
        let deleted = firstPosts[6]
        let neighbors = PositionSnapshot.Neighbors(above: [firstPosts[5].id, firstPosts[4].id], below: [firstPosts[7].id, firstPosts[8].id])
        try await setup.store.positions.saveSnapshot(
            PositionSnapshot(
                postId: deleted.id, postCreatedAt: deleted.createdAt, viewportY: -30, contentOffset: 900,
                index: 6, timelineCount: 40, neighbors: neighbors, text: deleted.text, savedAt: Date()),
            scope: Self.scope)

        // Next launch: the cache is handed over at once, then refreshed.
        let handed = CachedBox()
        let report = try await loader.load(from: source, onCached: { handed.set($0?.posts.count) })
        #expect(handed.value == 40)
        #expect(report.cached?.posts == firstPosts)
        #expect(report.status == .fresh)
        let merge = try #require(report.merge)
        #expect(merge.added.count == 2)
        #expect(merge.updated == [firstPosts[3].id])
        #expect(merge.removed == [deleted.id])
        #expect(merge.retained == [firstPosts[39].id])
        #expect(report.timeline.posts.count == 41)
        #expect(report.timeline.posts[5].text?.hasSuffix("(edited)") == true)
        #expect(try await setup.store.timelines.timeline(scope: Self.scope)?.posts == report.timeline.posts)

        // The deleted post's neighbours put the reader back between posts 6 and 8 of the first page.
        let restoration = try #require(report.restoration)
        #expect(restoration.postId != deleted.id)
        #expect([firstPosts[5].id, firstPosts[7].id].contains(restoration.postId))
        #expect(try await setup.store.positions.lastRestoration(scope: Self.scope) != nil)

        // The report as `engine timeline fetch --format json` writes it.
        let json = report.jsonValue(source: source)
        #expect(
            json.dictionaryValue?.keys.map(\.string)
                == ["source", "status", "lastRefreshed", "cached", "attempts", "error", "changes", "posts", "gaps", "start", "reach", "restoration"])
        #expect(json["source"]?.stringValue == source.description)
        #expect(json["status"]?.stringValue == "fresh")
        #expect(json["cached"]?["posts"]?.numberValue == 40)
        #expect(json["attempts"]?.arrayValue?.count == 1)
        #expect(json["changes"]?["removed"] == .array([.string(deleted.id)]))
        #expect(json["changes"]?["edited"] == .array([.string(firstPosts[3].id)]))
        #expect(json["posts"]?.numberValue == 41)
        #expect(json["restoration"]?["postId"]?.stringValue == restoration.postId)
        #expect(json["start"]?["postId"]?.stringValue == deleted.id)
        #expect(json["reach"]?["requests"]?.arrayValue?.count == report.reach?.requests.count)
        #expect(json["restoration"]?["requests"]?.numberValue == Double(report.reach?.requestCount ?? 0))
    }

    @Test("a failed refresh leaves the cache untouched and says offline or stale, with the last refresh time")
    func failures() async throws {
        let setup = try await Self.setup()
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let refreshed = Date(timeIntervalSince1970: 1_670_446_000)
        setup.server.script(LoadingFixtures.mastodonPath, [.json(try LoadingFixtures.answer("mastodon-home.json"))])
        _ = try await setup.loader(try LoadingFixtures.policy("NoRetry"), now: refreshed).load(from: LoadingFixtures.mastodon(setup.server))
        let before = try await setup.store.timelines.timeline(scope: Self.scope)

        let answers: [(LoopbackHTTPServer.Answer, CacheFirstLoader.Status)] = [
            (.json(Data(#"{"error":"boom"}"#.utf8), status: 500), .stale),
            (.json(Data("[{".utf8)), .stale),
            (LoopbackHTTPServer.Answer(body: Data("[]".utf8), delay: Deadline.scaled(4)), .offline),
        ]
        for (answer, status) in answers {
            setup.server.script(LoadingFixtures.mastodonPath, [answer])
            let report = try await setup.loader(try LoadingFixtures.policy("NoRetry")).load(from: LoadingFixtures.mastodon(setup.server))
            #expect(report.status == status)
            #expect(report.error != nil)
            #expect(report.lastRefreshed == refreshed)
            #expect(report.merge == nil)
            #expect(report.timeline.posts == before?.posts)
            #expect(try await setup.store.timelines.timeline(scope: Self.scope)?.posts == before?.posts)
            #expect(try await setup.store.timelines.refreshedAt(scope: Self.scope) == refreshed)
        }
        let source = LoadingFixtures.mastodon(setup.server)
        setup.server.stop()
        let offline = try await setup.loader(try LoadingFixtures.policy("ExponentialBackoff", ["MaxAttempts": 2, "BaseDelay": 0.01]))
            .load(from: source)
        #expect(offline.status == .offline)
        #expect(offline.attempts.count == 2)
        #expect(offline.timeline.posts == before?.posts)
    }

    @Test("a file source is the whole timeline; the cache policy trims what is stored")
    func fileSource() async throws {
        let setup = try await Self.setup()
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let file = Fixtures.url("posts/home-timeline-2022-12-07.jsonl").path
        let report = try await setup.loader(
            try LoadingFixtures.policy("NoRetry"),
            cachePolicy: CachePolicyBuilder(
                configuration: ConfigurationLoader().read(data: Data(#"{"TimelineCache": {"MaxCacheSize": 50}}"#.utf8)).configuration
            )
            .timelineCache()
        ).load(from: .file(path: file, format: nil))
        #expect(report.status == .fresh)
        #expect(report.merge?.added.count == 97)
        #expect(report.evicted.count == 47)
        #expect(report.timeline.posts.count == 50)
        #expect(try await setup.store.timelines.timeline(scope: Self.scope)?.posts.count == 50)

        let missing = try await setup.loader(try LoadingFixtures.policy("NoRetry")).load(from: .file(path: "/nonexistent/t.json", format: nil))
        #expect(missing.status == .stale)
        #expect(missing.error?.description == "/nonexistent/t.json: error: cannot read file: No such file or directory")
        #expect(missing.timeline.posts.count == 50)
    }
}

/// Records what `onCached` handed over.
// @unchecked: `stored` is read and written under `lock` only.
final class CachedBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Int?
    func set(_ value: Int?) { lock.withLock { stored = value } }
    var value: Int? { lock.withLock { stored } }
}
