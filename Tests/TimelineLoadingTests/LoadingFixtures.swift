import Foundation
import Testing
import TimelineEngineConfiguration
import TimelineEngineHTTPExchange
import TimelineEngineLoading
import TimelineEngineNIOHTTP
import TimelineEngineReachModel
import TimelineEngineRestoration
import TimelineEngineStore
import TimelineEngineTestSupport
import TimelineEngineURLSessionHTTP
import TimelineEngineValueTree

/// An HTTP client the loopback tests run against, named for the test's arguments.
struct TestClient: CustomTestStringConvertible, Sendable {
    let name: String
    let exchange: any HTTPExchange

    var testDescription: String { name }

    /// AsyncHTTPClient, the command line's, and the platform's URLSession, the default on Apple
    /// platforms: the same loopback tests hold for both.
    static let all = [
        TestClient(name: "AsyncHTTPClient", exchange: NIOHTTPExchange()),
        TestClient(name: "URLSession", exchange: URLSessionExchange()),
    ]
    static let nio = all[0]
}

/// The recorded answers, the loopback server and the fetchers the loading tests share.
enum LoadingFixtures {
    static func answer(_ name: String) throws -> Data {
        try Data(contentsOf: Fixtures.url("api/\(name)"))
    }

    static let mastodonPath = "/api/v1/timelines/home"
    static let blueskyPath = "/xrpc/app.bsky.feed.getTimeline"

    /// A network policy by registry spec, e.g. `ExponentialBackoff(MaxAttempts: 3)`.
    static func policy(_ name: String, _ parameters: [String: Double] = [:]) throws -> any NetworkPolicy {
        var values = Value.Dictionary()
        for (key, value) in parameters.sorted(by: { $0.key < $1.key }) { values[key] = Value.Member(value: value.schemaValue) }
        return try NetworkPolicyBuilder().policy(from: ComponentSpec(name: name, parameters: values))
    }

    /// A fetcher with a fixed jitter draw, so delays are known. Its request timeout is 5 s, longer
    /// under a sanitizer (`Deadline.scale`); a test about timeouts passes its own.
    static func fetcher(
        _ policy: any NetworkPolicy, timeout: Double = Deadline.scaled(5), token: String? = "secret-token",
        client: TestClient = .nio
    ) -> SourceFetcher {
        SourceFetcher(
            policy: policy, requestTimeout: timeout, environment: token.map { ["TEST_TOKEN": $0] } ?? [:], jitter: { 0.5 },
            exchange: client.exchange)
    }

    static func mastodon(_ server: LoopbackHTTPServer) -> TimelineSource {
        .mastodon(URL(string: server.baseURL + mastodonPath + "?limit=40")!, tokenVariable: "TEST_TOKEN")
    }

    static func bluesky(_ server: LoopbackHTTPServer) -> TimelineSource {
        .bluesky(URL(string: server.baseURL + blueskyPath + "?limit=40")!, tokenVariable: "TEST_TOKEN")
    }
}
