import Foundation
import TimelineEngineReachModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// ExponentialBackoff: retries transient failures (timeouts, lost connections, truncated
/// bodies, 408, 429, 5xx) up to `MaxAttempts` requests in all, waiting a "full jitter" delay
/// before each retry: a uniform draw between 0 and `min(MaxDelay, BaseDelay × 2^(attempt−1))`.
///
/// When the server says how long to wait (`Retry-After`, or a rate-limit reset header), the
/// wait is never shorter than that; if the server asks for more than `MaxDelay`, the fetch
/// stops instead of retrying early. A rate limit without a stated wait waits the whole
/// exponential step, without jitter, so a 429 is never retried faster than the backoff allows.
/// Failures that asking again cannot fix (other 4xx, a body of the wrong shape) stop at once.
public struct ExponentialBackoffPolicy: NetworkPolicy, DeclaredStrategy {
    public static let maxAttemptsParameter = Parameter<Int>(
        "MaxAttempts", help: "The most requests per fetch, the first included.", default: 4, range: 1...20)
    public static let baseDelayParameter = Parameter<Double>(
        "BaseDelay", help: "Seconds of the first backoff step; each retry doubles it.", default: 0.5, above: 0, maximum: 86_400)
    public static let maxDelayParameter = Parameter<Double>(
        "MaxDelay", help: "The longest wait in seconds, for one step or for a server's Retry-After.", default: 30, above: 0, maximum: 86_400)

    public static let type = StrategyType(
        name: "ExponentialBackoff", kind: .network,
        summary: "Retries transient failures with full-jitter exponential backoff, honouring Retry-After.",
        parameters: [maxAttemptsParameter.declaration, baseDelayParameter.declaration, maxDelayParameter.declaration],
        examples: ExponentialBackoffPolicy.scenarios
    ) { options in
        .network(
            ExponentialBackoffPolicy(
                maxAttempts: options(maxAttemptsParameter), baseDelay: options(baseDelayParameter),
                maxDelay: options(maxDelayParameter)))
    }

    public let maxAttempts: Int
    public let baseDelay: Double
    public let maxDelay: Double

    public init(maxAttempts: Int, baseDelay: Double, maxDelay: Double) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = max(0, baseDelay)
        self.maxDelay = max(0, maxDelay)
    }

    /// The ceiling of the backoff step after attempt `attempt`.
    public func step(after attempt: Int) -> Double {
        let exponent = Double(max(0, attempt - 1))
        return min(maxDelay, baseDelay * pow(2, exponent))
    }

    public func retryDelay(after failure: FetchFailure, attempt: Int, jitter: Double) -> Double? {
        guard failure.isTransient, attempt < maxAttempts else { return nil }
        let ceiling = step(after: attempt)
        var delay = min(max(jitter, 0), 1) * ceiling
        if case .http(_, let retryAfter?) = failure {
            guard retryAfter <= maxDelay else { return nil }
            delay = max(delay, retryAfter)
        } else if failure.isRateLimit {
            delay = ceiling
        }
        return delay
    }

    static let scenarios: [NetworkScenario] = [
        NetworkScenario(
            name: "server errors back off exponentially with full jitter until MaxAttempts",
            failures: Array(repeating: .http(status: 500, retryAfter: nil), count: 4), jitter: 0.5,
            parameters: ["MaxAttempts": 4, "BaseDelay": 1, "MaxDelay": 30],
            expectedDelays: [0.5, 1, 2, nil]),
        NetworkScenario(
            name: "the step is capped by MaxDelay", failures: Array(repeating: .timeout, count: 5), jitter: 1,
            parameters: ["MaxAttempts": 6, "BaseDelay": 1, "MaxDelay": 4], expectedDelays: [1, 2, 4, 4, 4]),
        NetworkScenario(
            name: "Retry-After is a floor under the jittered delay",
            failures: [.http(status: 429, retryAfter: 3), .http(status: 503, retryAfter: 0.1)], jitter: 0.5,
            parameters: ["MaxAttempts": 4, "BaseDelay": 1, "MaxDelay": 30], expectedDelays: [3, 1]),
        NetworkScenario(
            name: "a 429 without Retry-After waits the whole step", failures: [.http(status: 429, retryAfter: nil)],
            jitter: 0, parameters: ["MaxAttempts": 3, "BaseDelay": 2], expectedDelays: [2]),
        NetworkScenario(
            name: "a Retry-After longer than MaxDelay stops instead of retrying early",
            failures: [.http(status: 429, retryAfter: 120)], parameters: ["MaxDelay": 30], expectedDelays: [nil]),
        NetworkScenario(
            name: "refusals and wrong content are not retried",
            failures: [
                .http(status: 401, retryAfter: nil), .http(status: 404, retryAfter: nil),
                .invalidContent("expected JSON"),
            ],
            expectedDelays: [nil, nil, nil]),
        NetworkScenario(
            name: "truncated bodies and lost connections are retried",
            failures: [.truncated, .connection("reset")], jitter: 0.25, parameters: ["BaseDelay": 2],
            expectedDelays: [0.5, 1]),
    ]
}
