import TimelineEngineReachModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// NoRetry: one request per fetch, whatever happens. The seed's server-friendly default: a
/// failed refresh leaves the cached timeline in place and never adds load to a struggling
/// server.
public struct NoRetryPolicy: NetworkPolicy, DeclaredStrategy {
    public static let type = StrategyType(
        name: "NoRetry", kind: .network,
        summary: "Makes one request per fetch and never retries.",
        examples: NoRetryPolicy.scenarios
    ) { _ in
        .network(NoRetryPolicy())
    }

    public let maxAttempts = 1

    public init() {}

    public func retryDelay(after failure: FetchFailure, attempt: Int, jitter: Double) -> Double? {
        nil
    }

    static let scenarios: [NetworkScenario] = [
        NetworkScenario(name: "a server error is not retried", failures: [.http(status: 500, retryAfter: nil)], expectedDelays: [nil]),
        NetworkScenario(name: "a timeout is not retried", failures: [.timeout], expectedDelays: [nil]),
        NetworkScenario(
            name: "a rate limit is not retried, even with Retry-After", failures: [.http(status: 429, retryAfter: 1)],
            expectedDelays: [nil]),
    ]
}
