import Foundation
import Testing
import TimelineEngineLoading
import TimelineEngineTestSupport

/// Fetching from a real HTTP server on the loopback interface, with failures injected, under
/// both network policies. Timing assertions are lower bounds only: a retry may come late on a
/// busy machine, never early.
@Suite("HTTP sources against a loopback server", .timeLimit(.minutes(10)))
struct HTTPSourceTests {
    @Test("a Mastodon home timeline: the bearer token from the environment, the statuses as posts", arguments: TestClient.all)
    func mastodon(_ client: TestClient) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.script(LoadingFixtures.mastodonPath, [.json(try LoadingFixtures.answer("mastodon-home.json"))])
        let outcome = await LoadingFixtures.fetcher(try LoadingFixtures.policy("NoRetry"), client: client).fetch(LoadingFixtures.mastodon(server))
        let posts = try outcome.result.get()
        #expect(posts.count == 40)
        #expect(posts[0].id == "1600602374875275267")
        #expect(posts[0].author == "AErcoreca")
        #expect(posts[0].text?.hasPrefix("⚖️ El Tribunal Supremo declara nulo") == true)
        #expect(posts[0].text?.contains("extra.\n#itss #fol") == true)
        let request = try #require(server.received.first)
        #expect(request.path == "/api/v1/timelines/home?limit=40")
        #expect(request.headers["authorization"] == "Bearer secret-token")
        #expect(request.headers["accept"] == "application/json")
        #expect(outcome.attempts.count == 1)
        #expect(outcome.attempts[0].failure == nil)
    }

    @Test(
        "a gzip-compressed answer: decompressed where the client does so (URLSession), else said plainly, announced or not", arguments: TestClient.all
    )
    func compressed(_ client: TestClient) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        // "[]" gzip-compressed: 22 bytes, starting with gzip's magic 1F 8B.
        let gzipped = try #require(Data(base64Encoded: "H4sIAAAAAAACA4uOBQApu0wNAgAAAA=="))
        let json = ("Content-Type", "application/json; charset=utf-8")
        server.script(LoadingFixtures.mastodonPath, [LoopbackHTTPServer.Answer(headers: [json, ("Content-Encoding", "gzip")], body: gzipped)])
        let fetcher = LoadingFixtures.fetcher(try LoadingFixtures.policy("NoRetry"), client: client)
        let announced = await fetcher.fetch(LoadingFixtures.mastodon(server))
        switch (client.name, announced.result) {
        case ("URLSession", .success(let posts)):
            // Its Content-Length counts the compressed bytes: no "cut short: 2 of 22 bytes".
            #expect(posts.isEmpty)
        case (_, .failure(let error)):
            #expect(client.name != "URLSession", "\(error.message)")
            #expect(error.message == "the answer is compressed (Content-Encoding: gzip), which this client did not ask for and does not decompress")
        case (_, .success):
            Issue.record("\(client.name) read a compressed body as JSON")
        }
        server.script(LoadingFixtures.mastodonPath, [LoopbackHTTPServer.Answer(headers: [json], body: gzipped)])
        let unannounced = await fetcher.fetch(LoadingFixtures.mastodon(server))
        guard case .failure(let error) = unannounced.result else {
            Issue.record("an unannounced gzip body was read as JSON")
            return
        }
        #expect(error.message == "the answer is gzip-compressed, though no Content-Encoding says so")
    }

    @Test("a Bluesky timeline: app.bsky.feed.getTimeline's feed as posts", arguments: TestClient.all)
    func bluesky(_ client: TestClient) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.script(LoadingFixtures.blueskyPath, [.json(try LoadingFixtures.answer("bluesky-timeline.json"))])
        let outcome = await LoadingFixtures.fetcher(try LoadingFixtures.policy("NoRetry"), client: client).fetch(LoadingFixtures.bluesky(server))
        let posts = try outcome.result.get()
        #expect(posts.count == 40)
        #expect(posts[0].id.hasPrefix("at://did:plc:"))
        #expect(posts[0].author == "aercoreca.bsky.social")
    }

    @Test("NoRetry makes one request on a 500 and reports the server's message", arguments: TestClient.all)
    func noRetry(_ client: TestClient) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.script(LoadingFixtures.mastodonPath, [.json(Data(#"{"error":"Something went wrong"}"#.utf8), status: 500)])
        let outcome = await LoadingFixtures.fetcher(try LoadingFixtures.policy("NoRetry"), client: client).fetch(LoadingFixtures.mastodon(server))
        #expect(server.received.count == 1)
        guard case .failure(let error) = outcome.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.description == "\(server.baseURL)/api/v1/timelines/home?limit=40: error: HTTP 500: Something went wrong")
        #expect(!error.isUnreachable)
        #expect(outcome.attempts.map(\.failure) == [.http(status: 500, retryAfter: nil)])
    }

    @Test("an error shows a long source cut: the URL of a page after a 200 KB cursor is its first 400 characters and its length")
    func longSource() {
        let url = "https://bsky.example/xrpc/app.bsky.feed.getTimeline?cursor=" + String(repeating: "%2F", count: 66_667)
        let error = SourceError(source: url, "HTTP 500")
        #expect(error.description == "\(url.prefix(400))… (\(url.utf8.count) bytes): error: HTTP 500")
        #expect(error.description.utf8.count < 600)
        #expect(SourceError(source: "https://bsky.example/x", "HTTP 500").description == "https://bsky.example/x: error: HTTP 500")
    }

    @Test("ExponentialBackoff retries 500s with growing waits until the server answers", arguments: TestClient.all)
    func backoff(_ client: TestClient) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let error = LoopbackHTTPServer.Answer.json(Data(#"{"error":"busy"}"#.utf8), status: 503)
        server.script(LoadingFixtures.mastodonPath, [error, error, .json(try LoadingFixtures.answer("mastodon-home.json"))])
        let policy = try LoadingFixtures.policy("ExponentialBackoff", ["MaxAttempts": 4, "BaseDelay": 0.2])
        let outcome = await LoadingFixtures.fetcher(policy, client: client).fetch(LoadingFixtures.mastodon(server))
        #expect(try outcome.result.get().count == 40)
        #expect(server.received.count == 3)
        // Full jitter at a draw of 0.5: half of 0.2 s, then half of 0.4 s.
        #expect(outcome.attempts.map(\.retryDelay) == [0.1, 0.2, nil])
        let arrivals = server.received.map(\.arrivedAt)
        #expect(arrivals[1] - arrivals[0] >= 0.1)
        #expect(arrivals[2] - arrivals[1] >= 0.2)
    }

    @Test("ExponentialBackoff stops at MaxAttempts and says how many it made", arguments: TestClient.all)
    func givesUp(_ client: TestClient) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.script(LoadingFixtures.mastodonPath, [.json(Data("{}".utf8), status: 502)])
        let policy = try LoadingFixtures.policy("ExponentialBackoff", ["MaxAttempts": 3, "BaseDelay": 0.05])
        let outcome = await LoadingFixtures.fetcher(policy, client: client).fetch(LoadingFixtures.mastodon(server))
        #expect(server.received.count == 3)
        guard case .failure(let failure) = outcome.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(failure.message == "HTTP 502 (after 3 attempts)")
    }

    @Test("a 429 is retried no sooner than its Retry-After", arguments: TestClient.all)
    func rateLimit(_ client: TestClient) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let limited = LoopbackHTTPServer.Answer(
            status: 429, headers: [("Content-Type", "application/json"), ("Retry-After", "1")],
            body: Data(#"{"error":"Too many requests"}"#.utf8))
        server.script(LoadingFixtures.blueskyPath, [limited, .json(try LoadingFixtures.answer("bluesky-timeline.json"))])
        let policy = try LoadingFixtures.policy("ExponentialBackoff", ["MaxAttempts": 3, "BaseDelay": 0.05])
        let outcome = await LoadingFixtures.fetcher(policy, client: client).fetch(LoadingFixtures.bluesky(server))
        #expect(try outcome.result.get().count == 40)
        #expect(outcome.attempts.map(\.failure) == [.http(status: 429, retryAfter: 1), nil])
        #expect(outcome.attempts[0].retryDelay == 1)
        let arrivals = server.received.map(\.arrivedAt)
        #expect(arrivals.count == 2)
        #expect(arrivals[1] - arrivals[0] >= 1.0)
    }

    @Test("a Retry-After beyond MaxDelay stops at once instead of retrying early; Bluesky's RateLimit-Reset counts too", arguments: TestClient.all)
    func rateLimitTooLong(_ client: TestClient) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let reset = Int(Date().timeIntervalSince1970) + 300
        server.script(
            LoadingFixtures.blueskyPath,
            [
                LoopbackHTTPServer.Answer(
                    status: 429, headers: [("Content-Type", "application/json"), ("RateLimit-Reset", "\(reset)")],
                    body: Data(#"{"error":"RateLimitExceeded","message":"Rate Limit Exceeded"}"#.utf8))
            ])
        let policy = try LoadingFixtures.policy("ExponentialBackoff", ["MaxAttempts": 5, "MaxDelay": 30])
        let outcome = await LoadingFixtures.fetcher(policy, client: client).fetch(LoadingFixtures.bluesky(server))
        #expect(server.received.count == 1)
        guard case .failure(let error) = outcome.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.message.hasPrefix("HTTP 429: Rate Limit Exceeded (the server asks to wait "))
    }

    @Test("a server that does not answer in time is a timeout, and the source counts as unreachable", arguments: TestClient.all)
    func timeout(_ client: TestClient) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.script(LoadingFixtures.mastodonPath, [LoopbackHTTPServer.Answer(body: Data("[]".utf8), delay: 60)])
        let outcome = await LoadingFixtures.fetcher(try LoadingFixtures.policy("NoRetry"), timeout: 0.5, client: client).fetch(
            LoadingFixtures.mastodon(server))
        guard case .failure(let error) = outcome.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.failure == .timeout)
        #expect(error.isUnreachable)
        // The server would have answered "[]", a valid empty timeline, after 60 s (its wait
        // ends when the test stops it): a timeout means the deadline ended the request first.
        // A wait of a few seconds was not enough: on a loaded machine the client's event loop
        // can be held up past both the deadline and the answer, and then take the answer.
    }

    @Test("a body cut short of its Content-Length is reported as truncated, and retried", arguments: TestClient.all)
    func truncated(_ client: TestClient) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let body = try LoadingFixtures.answer("mastodon-home.json")
        server.script(LoadingFixtures.mastodonPath, [LoopbackHTTPServer.Answer(body: body, truncateAfter: 1000), .json(body)])
        let noRetry = await LoadingFixtures.fetcher(try LoadingFixtures.policy("NoRetry"), client: client).fetch(LoadingFixtures.mastodon(server))
        guard case .failure(let error) = noRetry.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.failure == .truncated)
        server.script(LoadingFixtures.mastodonPath, [LoopbackHTTPServer.Answer(body: body, truncateAfter: 1000), .json(body)])
        let policy = try LoadingFixtures.policy("ExponentialBackoff", ["BaseDelay": 0.05])
        let retried = await LoadingFixtures.fetcher(policy, client: client).fetch(LoadingFixtures.mastodon(server))
        #expect(try retried.result.get().count == 40)
        #expect(retried.attempts.map(\.failure) == [.truncated, nil])
    }

    @Test("wrong JSON and a wrong content type are reported clearly and not retried", arguments: TestClient.all)
    func wrongContent(_ client: TestClient) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let policy = try LoadingFixtures.policy("ExponentialBackoff", ["BaseDelay": 0.05])
        server.script(LoadingFixtures.mastodonPath, [.json(Data(#"{"feed": []}"#.utf8))])
        let shape = await LoadingFixtures.fetcher(policy, client: client).fetch(LoadingFixtures.mastodon(server))
        guard case .failure(let shapeError) = shape.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(shapeError.message == "the answer is not a Mastodon timeline (an array of Status): body 1:1: expected an array of Mastodon statuses")
        server.script(LoadingFixtures.mastodonPath, [.json(Data("[{\"id\": ".utf8))])
        let garbage = await LoadingFixtures.fetcher(policy, client: client).fetch(LoadingFixtures.mastodon(server))
        guard case .failure(let garbageError) = garbage.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(garbageError.message.hasPrefix("the answer is not a Mastodon timeline (an array of Status): body 1:9: "))
        server.script(
            LoadingFixtures.mastodonPath,
            [
                LoopbackHTTPServer.Answer(
                    headers: [("Content-Type", "text/html")],
                    body: Data("<html>Login</html>".utf8))
            ])
        let html = await LoadingFixtures.fetcher(policy, client: client).fetch(LoadingFixtures.mastodon(server))
        guard case .failure(let htmlError) = html.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(htmlError.message == "expected application/json, got Content-Type text/html")
        #expect(server.received.count == 3)
    }

    @Test("an answer larger than the limit is cut off, whether announced or not", arguments: TestClient.all)
    func tooLarge(_ client: TestClient) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let body = try LoadingFixtures.answer("mastodon-home.json")
        server.script(LoadingFixtures.mastodonPath, [.json(body)])
        let fetcher = LoadingFixtures.fetcher(try LoadingFixtures.policy("NoRetry"), client: client)
        let client = HTTPTimelineClient(timeout: 5, maxBodyBytes: 10_000, exchange: client.exchange)
        let url = URL(string: server.baseURL + LoadingFixtures.mastodonPath)!
        guard case .failure(let error) = await client.fetch(url, api: .mastodon, token: nil) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.message == "the answer is larger than 10000 bytes; it was not read")
        #expect(!error.failure.isTransient)
        server.script(LoadingFixtures.mastodonPath, [LoopbackHTTPServer.Answer(body: body, announcesLength: false), .json(body)])
        guard case .failure(let unannounced) = await client.fetch(url, api: .mastodon, token: nil) else {
            Issue.record("expected a failure")
            return
        }
        #expect(unannounced.message == "the answer is larger than 10000 bytes; it was not read")
        // Under the limit, the same answer reads.
        #expect(try await fetcher.fetch(LoadingFixtures.mastodon(server)).result.get().count == 40)
    }

    @Test("a redirect is followed, and the token goes only to the origin it was meant for", arguments: TestClient.all)
    func redirects(_ client: TestClient) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let body = try LoadingFixtures.answer("mastodon-home.json")
        // Same origin: the token follows.
        server.script("/old", [LoopbackHTTPServer.Answer(status: 301, headers: [("Location", LoadingFixtures.mastodonPath)])])
        server.script(LoadingFixtures.mastodonPath, [.json(body)])
        // The deadline is generous: this test is about where the token goes, and on a loaded
        // machine (the whole suite on 2 cores, under coverage) a redirect has taken over 5 s.
        let fetcher = LoadingFixtures.fetcher(try LoadingFixtures.policy("NoRetry"), timeout: 60, client: client)
        let same = await fetcher.fetch(.mastodon(URL(string: server.baseURL + "/old")!, tokenVariable: "TEST_TOKEN"))
        #expect(try same.result.get().count == 40)
        #expect(server.received.map { $0.headers["authorization"] } == ["Bearer secret-token", "Bearer secret-token"])
        // Another host (localhost is not 127.0.0.1): the token stays behind.
        let elsewhere = "http://localhost:\(server.port)\(LoadingFixtures.mastodonPath)"
        server.script("/moved", [LoopbackHTTPServer.Answer(status: 302, headers: [("Location", elsewhere)])])
        let other = await fetcher.fetch(.mastodon(URL(string: server.baseURL + "/moved")!, tokenVariable: "TEST_TOKEN"))
        #expect(try other.result.get().count == 40)
        #expect(server.received.suffix(2).map { $0.headers["authorization"] } == ["Bearer secret-token", nil])
    }

    @Test("a redirect loop ends after 5 redirects, said so, the source not offline and the loop not retried", arguments: TestClient.all)
    func redirectLoop(_ client: TestClient) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.handle("/loop") { _, _ in LoopbackHTTPServer.Answer(status: 302, headers: [("Location", "/loop")]) }
        let fetcher = LoadingFixtures.fetcher(try LoadingFixtures.policy("ExponentialBackoff", ["MaxAttempts": 3]), timeout: 60, client: client)
        let outcome = await fetcher.fetch(.mastodon(URL(string: server.baseURL + "/loop")!, tokenVariable: "TEST_TOKEN"))
        guard case .failure(let error) = outcome.result else {
            Issue.record("a redirect loop was read as a timeline")
            return
        }
        #expect(error.message.hasPrefix("more than 5 redirects, the last to \(server.baseURL)/loop: the server redirects in a loop; not followed"))
        #expect(!error.isUnreachable)
        // The loop is met once and never retried: the attempt that met it is the last, after
        // the first request and 5 redirects. (On a loaded machine an earlier attempt can lose
        // its connection, which is retried; that is not the loop.)
        let loop = try #require(outcome.attempts.last?.failure)
        #expect(outcome.attempts.filter { $0.failure == loop }.count == 1)
        if outcome.attempts.count == 1 {
            #expect(error.message == "more than 5 redirects, the last to \(server.baseURL)/loop: the server redirects in a loop; not followed")
            #expect(server.received.count == 6)
        }
    }

    @Test("a refused connection is unreachable; a 401 without a token says so", arguments: TestClient.all)
    func unreachableAndUnauthorized(_ client: TestClient) async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.script(LoadingFixtures.mastodonPath, [.json(Data(#"{"error":"The access token is invalid"}"#.utf8), status: 401)])
        let unauthorized = await LoadingFixtures.fetcher(try LoadingFixtures.policy("ExponentialBackoff"), token: nil, client: client)
            .fetch(LoadingFixtures.mastodon(server))
        guard case .failure(let error) = unauthorized.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.message == "HTTP 401: The access token is invalid; no access token was sent")
        #expect(server.received.count == 1)
        #expect(server.received[0].headers["authorization"] == nil)
        let source = LoadingFixtures.mastodon(server)
        server.stop()
        let refused = await LoadingFixtures.fetcher(try LoadingFixtures.policy("NoRetry"), client: client).fetch(source)
        guard case .failure(let refusedError) = refused.result else {
            Issue.record("expected a failure")
            return
        }
        #expect(refusedError.isUnreachable)
    }
}
