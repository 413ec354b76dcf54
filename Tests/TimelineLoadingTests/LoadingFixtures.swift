import EngineConfiguration
import Foundation
import RestorationEngine
import StrategyKit
import TestSupport
import TimelineLoading
import TimelineStore
import ValueTree

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

    /// A fetcher with a fixed jitter draw, so delays are known.
    static func fetcher(_ policy: any NetworkPolicy, timeout: Double = 5, token: String? = "secret-token") -> SourceFetcher {
        SourceFetcher(policy: policy, requestTimeout: timeout, environment: token.map { ["TEST_TOKEN": $0] } ?? [:], jitter: { 0.5 })
    }

    static func mastodon(_ server: LoopbackHTTPServer) -> TimelineSource {
        .mastodon(URL(string: server.baseURL + mastodonPath + "?limit=40")!, tokenVariable: "TEST_TOKEN")
    }

    static func bluesky(_ server: LoopbackHTTPServer) -> TimelineSource {
        .bluesky(URL(string: server.baseURL + blueskyPath + "?limit=40")!, tokenVariable: "TEST_TOKEN")
    }
}
