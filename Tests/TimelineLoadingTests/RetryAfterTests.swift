import Foundation
import Testing
import TimelineEngineFormats
import TimelineEngineHTTPExchange
import TimelineEngineTestSupport

@testable import TimelineEngineLoading

/// How long a server asks to wait, in each of the forms servers use, and a fetch cancelled
/// mid-request.
@Suite("Retry-After, rate-limit resets and cancellation", .timeLimit(.minutes(10)))
struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 1_445_412_450)  // Wed, 21 Oct 2015 07:27:30 GMT

    static func response(_ headers: [String: String], status: Int = 429) -> HTTPExchangeAnswer {
        HTTPExchangeAnswer(status: status, headers: headers.map { ($0.key, $0.value) }, body: Data())
    }

    @Test("Retry-After as seconds or as an HTTP date (RFC 9110), never negative")
    func retryAfter() {
        #expect(RetryAfter.parse("120", now: Self.now) == 120)
        #expect(RetryAfter.parse(" 0 ", now: Self.now) == 0)
        #expect(RetryAfter.parse("Wed, 21 Oct 2015 07:28:00 GMT", now: Self.now) == 30)
        #expect(RetryAfter.parse("Wed, 21 Oct 2015 07:20:00 GMT", now: Self.now) == 0)
        #expect(RetryAfter.parse("-5", now: Self.now) == nil)
        #expect(RetryAfter.parse("soon", now: Self.now) == nil)
    }

    @Test("on a 429: Mastodon's X-RateLimit-Reset (a timestamp) and Bluesky's RateLimit-Reset (Unix seconds); Retry-After first")
    func rateLimitResets() {
        #expect(RetryAfter.seconds(from: Self.response(["X-RateLimit-Reset": "2015-10-21T07:28:10.000Z"]), now: Self.now) == 40)
        #expect(RetryAfter.seconds(from: Self.response(["X-RateLimit-Reset": "2015-10-21T07:27:45Z"]), now: Self.now) == 15)
        #expect(RetryAfter.seconds(from: Self.response(["RateLimit-Reset": "1445412460"]), now: Self.now) == 10)
        #expect(RetryAfter.seconds(from: Self.response(["Retry-After": "3", "X-RateLimit-Reset": "2015-10-21T07:28:10Z"]), now: Self.now) == 3)
        // The reset headers say when a quota renews, not that a 503 should wait.
        #expect(RetryAfter.seconds(from: Self.response(["X-RateLimit-Reset": "2015-10-21T07:28:10Z"], status: 503), now: Self.now) == nil)
        #expect(RetryAfter.seconds(from: Self.response([:]), now: Self.now) == nil)
    }

    @Test("any wait or reset a server sends is bounded to a year: 2⁶³ seconds, inf and 1e300 crash nothing")
    func boundedWaits() {
        let year = RetryAfter.longestWait
        #expect(RetryAfter.parse("9223372036854775807", now: Self.now) == year)
        #expect(RetryAfter.seconds(from: Self.response(["Retry-After": "9223372036854775807"], status: 503), now: Self.now) == year)
        for reset in ["inf", "1e300", "-inf", "nan", "-1e300"] {
            let wait = RetryAfter.seconds(from: Self.response(["RateLimit-Reset": reset]), now: Self.now)
            #expect(wait == (reset == "nan" ? nil : reset.hasPrefix("-") ? 0 : year), "\(reset)")
            let spent = RetryAfter.spentUntil(
                from: Self.response(["RateLimit-Remaining": "0", "RateLimit-Reset": reset], status: 200), now: Self.now)
            #expect(spent == (reset == "nan" ? nil : Self.now.addingTimeInterval(reset.hasPrefix("-") ? 0 : year)), "\(reset)")
            // What the engine prints of it.
            _ = spent.map(Timestamp.format)
        }
        #expect(RetryAfter.describe(.infinity) == "31622400 s")
        #expect(RetryAfter.describe(.nan) == "an unknown time")
    }

    @Test("a 503 asking to wait 2⁶³ seconds, and a 200 whose rate limit resets at 1e300, are answered in words, not a crash")
    func hostileHeadersOverHTTP() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.script(LoadingFixtures.mastodonPath, [LoopbackHTTPServer.Answer(status: 503, headers: [("Retry-After", "9223372036854775807")])])
        let fetcher = LoadingFixtures.fetcher(try LoadingFixtures.policy("NoRetry"))
        let outcome = await fetcher.fetch(LoadingFixtures.mastodon(server))
        guard case .failure(let error) = outcome.result else {
            Issue.record("a 503 was taken as an answer")
            return
        }
        #expect(error.message == "HTTP 503 (the server asks to wait 31622400 s)")
        var spent = LoopbackHTTPServer.Answer.json(try LoadingFixtures.answer("mastodon-home.json"))
        spent.headers += [("RateLimit-Remaining", "0"), ("RateLimit-Reset", "1e300")]
        server.script(LoadingFixtures.mastodonPath, [spent])
        let limited = await fetcher.fetch(LoadingFixtures.mastodon(server))
        let until = try #require(limited.rateLimitSpentUntil)
        #expect(until.timeIntervalSinceNow <= RetryAfter.longestWait)
        #expect(Timestamp.format(until).hasSuffix("Z"))
    }

    @Test("a fetch cancelled while the server takes its time ends at once, without the answer and without a retry")
    func cancellation() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        // The answer is held until the server stops: however slowly the machine runs, the only
        // way this fetch ends before then is by its cancellation. Had cancellation been ignored,
        // it would wait for its 30 s timeout and retry.
        var held = LoopbackHTTPServer.Answer.json(try LoadingFixtures.answer("mastodon-home.json"))
        held.delay = .infinity
        server.script(LoadingFixtures.mastodonPath, [held])
        let fetcher = LoadingFixtures.fetcher(try LoadingFixtures.policy("ExponentialBackoff", ["MaxAttempts": 3, "BaseDelay": 0.1]), timeout: 30)
        let task = Task { await fetcher.fetch(LoadingFixtures.mastodon(server)) }
        // Cancel once the request is under way (cancelling before it starts tests something
        // else): wait for it up to 60 s, as other tests may load the machine.
        for _ in 0..<3000 where server.received.isEmpty { try await Task.sleep(nanoseconds: 20_000_000) }
        try #require(!server.received.isEmpty, "the request never reached the server")
        task.cancel()
        let outcome = await task.value
        switch outcome.result {
        case .success(let posts): Issue.record("the fetch succeeded with \(posts.count) posts though the answer was held")
        case .failure(let error): #expect(error.failure == .connection("cancelled"), "\(error.message)")
        }
        #expect(outcome.attempts.count == 1)
        #expect(outcome.attempts.last?.retryDelay == nil)
        #expect(server.received.count == 1)
    }

    @Test("a fetch cancelled before it starts makes no request and ends at once")
    func cancelledBeforeStart() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.script(LoadingFixtures.mastodonPath, [.json(try LoadingFixtures.answer("mastodon-home.json"))])
        let fetcher = LoadingFixtures.fetcher(try LoadingFixtures.policy("NoRetry"), timeout: 30)
        let source = LoadingFixtures.mastodon(server)
        let task = Task {
            // Cancelled before the fetch begins.
            withUnsafeCurrentTask { $0?.cancel() }
            return await fetcher.fetch(source)
        }
        let outcome = await task.value
        #expect(throws: SourceError.self) { try outcome.result.get() }
        #expect(outcome.attempts.isEmpty)
        #expect(server.received.isEmpty)
    }
}
