import Foundation
import Testing
import TimelineEngineCausalFurthest
import TimelineEngineCore
import TimelineEngineHTTPExchange
import TimelineEngineLoading
import TimelineEnginePostWindow
import TimelineEngineRestoration
import TimelineEngineRestorationModel
import TimelineEngineStore
import TimelineEngineSupport
import TimelineEngineTestSupport

/// What bounds a fetch: one deadline for the refresh and its reach, answers cut to what was
/// asked, reach pages merged at once, and a cache trimmed around the reader's post.
@Suite("The bounds of a fetch", .timeLimit(.minutes(10)))
struct FetchBoundsTests {
    static let scope = ReachTests.scope

    /// A Bluesky store on a fresh device and the phone's position on post `target` of a feed of
    /// `count` posts served `pageSize` at a time (nil: as asked).
    static func device(count: Int, target: Int, pageSize: Int? = nil) async throws -> ReachTests.Setup {
        let directory = try Fixtures.temporaryDirectory()
        let store = try await TimelineStore(path: directory.appendingPathComponent("device.sqlite").path)
        let server = try FakeTimelineServer(mastodon: false, posts: ReachTests.feed(count), pageSize: pageSize)
        try await store.sync.savePosition(ReachTests.snapshot(target), scope: scope, device: "phone", at: ReachTests.base.addingTimeInterval(86_400))
        return ReachTests.Setup(directory: directory, store: store, server: server)
    }

    @Test("a reach that brings more posts than the cache keeps leaves the reader's post and its neighbours in the cache")
    func trimKeepsTheReadersPost() async throws {
        // 40 posts from the head page and 800 from the reach: the cache keeps 500, the post the
        // reach went for among them (evicted by key order before).
        let setup = try await Self.device(count: 1_000, target: 250)
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let report = try await setup.loader().load(from: setup.source)
        #expect(report.reach?.outcome == .reached)
        #expect(report.restoration?.postId == "250")
        #expect(report.restoration?.method == .exactMatch)
        let stored = try await #require(try setup.store.timelines.storedTimeline(scope: Self.scope)).posts.map(\.id)
        #expect((500...601).contains(stored.count))
        let kept = Set(stored)
        #expect((200...300).map(String.init).filter { !kept.contains($0) } == [], "posts next to the reader's were evicted")
        #expect(report.evicted.count == 840 - stored.count)
        let timeline = try await #require(try setup.store.timelines.storedTimeline(scope: Self.scope))
        let gaps = Set(timeline.gaps.map(\.above))
        for (upper, lower) in zip(timeline.posts, timeline.posts.dropFirst()) where Int(upper.id)! - Int(lower.id)! != 1 {
            #expect(gaps.contains(upper.id), "no gap between \(upper.id) and \(lower.id)")
        }
    }

    @Test("pages far longer than asked are cut to what was asked, past the reader's post, and said so")
    func longPagesAreCut() async throws {
        // Every page holds 250 posts where 40 or 100 were asked; the post is 600 posts down.
        let setup = try await Self.device(count: 2_000, target: 1_400, pageSize: 250)
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let report = try await setup.loader().load(from: setup.source)
        let reach = try #require(report.reach)
        #expect(reach.outcome == .reached)
        #expect(reach.requests.map(\.posts) == [250, 250])
        #expect(reach.requests.map(\.cut) == [150, 49])
        #expect(report.restoration?.postId == "1400")
        #expect(report.restoration?.method == .exactMatch)
        let stored = try await #require(try setup.store.timelines.storedTimeline(scope: Self.scope))
        #expect(stored.posts.contains { $0.id == "1400" })
        // Posts left out (of a page, or evicted) leave a gap, never a false neighbour: wherever
        // two stored posts are not next to each other in the feed, a gap lies between them.
        let gaps = Set(stored.gaps.map(\.above))
        for (upper, lower) in zip(stored.posts, stored.posts.dropFirst()) where Int(upper.id)! - Int(lower.id)! != 1 {
            #expect(gaps.contains(upper.id), "no gap between \(upper.id) and \(lower.id)")
        }
    }

    @Test("the progress says which request of the reach is under way, then the merge")
    func progressNamesTheReach() async throws {
        let setup = try await Self.device(count: 1_000, target: 700)
        defer { try? FileManager.default.removeItem(at: setup.directory) }
        let reports = Locked<[String]>([])
        _ = try await setup.loader().load(
            from: setup.source,
            progress: { progress in
                let line: String =
                    switch progress {
                    case .attempting(let number, let total): "attempt \(number) of \(total)"
                    case .failed(let number, _, _): "failed \(number)"
                    case .reaching(let post, let request): "reaching \(post), request \(request)"
                    case .merging(let posts): "merging \(posts)"
                    }
                reports.withLock { $0.append(line) }
            })
        #expect(
            reports.withLock { $0 } == [
                "attempt 1 of 1", "reaching 700, request 1", "attempt 1 of 1", "reaching 700, request 2", "attempt 1 of 1",
                "reaching 700, request 3", "attempt 1 of 1", "merging 300",
            ])
    }

    /// An HTTP client that answers every request at once with `status`, recording the timeouts
    /// it was given.
    final class RecordingExchange: HTTPExchange {
        let status: Int
        let headers: [(name: String, value: String)]
        let error: HTTPExchangeError?
        let body: Data
        let timeouts = Locked<[Double]>([])

        init(
            status: Int = 200, headers: [(name: String, value: String)] = [], error: HTTPExchangeError? = nil, body: Data = Data(#"{"feed":[]}"#.utf8)
        ) {
            (self.status, self.headers, self.error, self.body) = (status, headers, error, body)
        }

        func send(_ request: HTTPExchangeRequest) async throws(HTTPExchangeError) -> HTTPExchangeAnswer {
            timeouts.withLock { $0.append(request.timeout) }
            if let error { throw error }
            let json = headers.contains { $0.name == "Content-Type" } ? [] : [(name: "Content-Type", value: "application/json")]
            return HTTPExchangeAnswer(status: status, headers: json + headers, body: body)
        }
    }

    static let source = TimelineSource.bluesky(
        URL(string: "http://127.0.0.1:9/xrpc/app.bsky.feed.getTimeline?limit=50")!, tokenVariable: "TEST_TOKEN")

    @Test("a server that answers every cursor with the same page: the refresh stops at the page that brought nothing new")
    func samePageForEveryCursor() async throws {
        let page = Data(#"[{"id":"1","created_at":"2026-08-01T12:00:00.000Z","content":"<p>one</p>","account":{"acct":"a"}}]"#.utf8)
        let exchange = RecordingExchange(body: page)
        let fetcher = SourceFetcher(
            policy: try LoadingFixtures.policy("NoRetry"), requestTimeout: 15, jitter: { 0.5 }, exchange: exchange,
            fetchDeadline: 60)
        let outcome = await fetcher.fetch(.mastodon(URL(string: "http://127.0.0.1:9/api/v1/timelines/home?limit=40")!, tokenVariable: "TEST_TOKEN"))
        #expect(try outcome.result.get().map(\.id) == ["1"])
        #expect(exchange.timeouts.withLock { $0 }.count == 2)
    }

    @Test("a Content-Type holding control characters is shown escaped in the error (found by fuzz-headers)")
    func contentTypeEscaped() async throws {
        let exchange = RecordingExchange(headers: [("Content-Type", "\t1\u{1b}[2J")])
        let fetcher = SourceFetcher(policy: try LoadingFixtures.policy("NoRetry"), requestTimeout: 15, jitter: { 0.5 }, exchange: exchange)
        let outcome = await fetcher.fetch(Self.source)
        guard case .failure(let error) = outcome.result else {
            Issue.record("the fetch succeeded")
            return
        }
        #expect(error.message == "expected application/json, got Content-Type \\u{9}1\\u{1b}[2J")
    }

    @Test("past the fetch's deadline no request is sent")
    func deadlinePassed() async throws {
        let exchange = RecordingExchange()
        let fetcher = SourceFetcher(
            policy: try LoadingFixtures.policy("NoRetry"), requestTimeout: 15, jitter: { 0.5 }, exchange: exchange,
            fetchDeadline: 60
        ).startingDeadline(at: ContinuousClock.now - .seconds(61))
        let outcome = await fetcher.fetch(Self.source)
        guard case .failure(let error) = outcome.result else {
            Issue.record("the fetch succeeded")
            return
        }
        #expect(error.message == "the fetch's deadline of 60 s has passed; not asked")
        #expect(exchange.timeouts.withLock { $0 }.isEmpty)
    }

    @Test("a request near the deadline may take only the time left, and says whose time ran out")
    func requestTimeoutCutByDeadline() async throws {
        let exchange = RecordingExchange(error: HTTPExchangeError(.timedOut, "timed out"))
        let fetcher = SourceFetcher(
            policy: try LoadingFixtures.policy("NoRetry"), requestTimeout: 15, jitter: { 0.5 }, exchange: exchange,
            fetchDeadline: 60
        ).startingDeadline(at: ContinuousClock.now - .seconds(58))
        let outcome = await fetcher.fetch(Self.source)
        let timeout = try #require(exchange.timeouts.withLock { $0 }.first)
        #expect(timeout > 0 && timeout <= 2)
        guard case .failure(let error) = outcome.result else {
            Issue.record("the fetch succeeded")
            return
        }
        #expect(error.message == "no complete answer before the fetch's deadline of 60 s")
    }

    @Test("a retry whose wait ends after the deadline is not made")
    func noRetryPastTheDeadline() async throws {
        let exchange = RecordingExchange(status: 503, headers: [("Retry-After", "30")])
        let policy = try LoadingFixtures.policy("ExponentialBackoff", ["MaxAttempts": 5, "BaseDelay": 1])
        let fetcher = SourceFetcher(policy: policy, requestTimeout: 15, jitter: { 0.5 }, exchange: exchange, fetchDeadline: 60)
            .startingDeadline(at: ContinuousClock.now - .seconds(50))
        let outcome = await fetcher.fetch(Self.source)
        #expect(exchange.timeouts.withLock { $0 }.count == 1)
        #expect(outcome.attempts.map(\.retryDelay) == [nil])
        guard case .failure(let error) = outcome.result else {
            Issue.record("the fetch succeeded")
            return
        }
        #expect(error.message.hasSuffix(" (not retried: the fetch's deadline of 60 s comes first)"))
    }
}
