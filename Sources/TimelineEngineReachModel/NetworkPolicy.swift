import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// Why one request to a timeline source failed, as a network policy sees it.
public enum FetchFailure: Sendable, Equatable, CustomStringConvertible {
    /// No answer within the request timeout.
    case timeout
    /// The connection could not be made or was lost (refused, reset, unknown host).
    case connection(String)
    /// The body ended before the length the server announced.
    case truncated
    /// An HTTP status other than 2xx. `retryAfter` is the wait in seconds the server asked for
    /// (`Retry-After`, or the rate-limit reset headers), when it gave one.
    case http(status: Int, retryAfter: Double?)
    /// The source answered, but not with a timeline: a wrong content type, or a body that does
    /// not parse as the expected API shape.
    case invalidContent(String)

    /// A failure that a later attempt could plausibly avoid: timeouts, lost connections,
    /// truncated bodies, 408, 429 and 5xx. A refused request (other 4xx) or a body of the wrong
    /// shape is not retried: asking again gives the same answer.
    public var isTransient: Bool {
        switch self {
        case .timeout, .connection, .truncated: true
        case .http(let status, _): status == 408 || status == 429 || (500...599).contains(status)
        case .invalidContent: false
        }
    }

    /// True for a rate-limit answer (429, or 503 with a wait).
    public var isRateLimit: Bool {
        if case .http(let status, let retryAfter) = self { return status == 429 || (status == 503 && retryAfter != nil) }
        return false
    }

    public var description: String {
        switch self {
        case .timeout: "timed out"
        case .connection(let reason): "connection failed: \(reason)"
        case .truncated: "the response body was cut short"
        case .http(let status, let retryAfter):
            "HTTP \(status)" + (retryAfter.map { " (retry after \(Self.seconds($0)))" } ?? "")
        case .invalidContent(let reason): reason
        }
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() && value < 1e9 ? "\(Int(value)) s" : "\(value) s"
    }
}

/// Decides whether a failed request to a timeline source is tried again, and when. Policies
/// are pure: the caller supplies the failure, the attempt number and the random draw used for
/// jitter, and does the waiting.
public protocol NetworkPolicy: Sendable {
    /// The registered name.
    var name: String { get }
    /// The most requests one fetch makes.
    var maxAttempts: Int { get }
    /// The seconds to wait before the next attempt after attempt `attempt` (1-based) failed
    /// with `failure`, or nil to stop. `jitter` is a uniform draw in [0, 1).
    func retryDelay(after failure: FetchFailure, attempt: Int, jitter: Double) -> Double?
}

/// A named example of a network policy at work, run by the conformance suite: a sequence of
/// failures, the random draw, parameters, and the delay the policy must answer after each
/// failure (nil: stop).
public struct NetworkScenario: StrategyExample {
    public let name: String
    public let failures: [FetchFailure]
    public let jitter: Double
    public let parameters: [String: Double]
    public let expectedDelays: [Double?]

    public init(
        name: String, failures: [FetchFailure], jitter: Double = 0.5, parameters: [String: Double] = [:],
        expectedDelays: [Double?]
    ) {
        self.name = name
        self.failures = failures
        self.jitter = jitter
        self.parameters = parameters
        self.expectedDelays = expectedDelays
    }
}

extension NetworkScenario {
    public var parameterValues: Value.Dictionary { Self.parameterValues(numbers: parameters) }
}
