import Foundation
import Testing
import TimelineEngineConfiguration
import TimelineEngineReachModel
import TimelineEngineRestoration
import TimelineEngineStrategyKit
import TimelineEngineStrategyTestSupport

/// The shared conformance suite for network policies, and building them from the configuration.
@Suite("Network policies", .timeLimit(.minutes(10)))
struct NetworkPolicyTests {
    static let types = BuiltInStrategies.registry.types(of: .network)

    static func configuration(_ json: String) -> TimelineConfiguration {
        ConfigurationLoader().read(data: Data(json.utf8)).configuration
    }

    @Test("every named scenario answers the expected delays", arguments: types.map(\.name))
    func scenarios(_ name: String) throws {
        let results = try NetworkScenarioRunner.run(try #require(BuiltInStrategies.registry[name]))
        #expect(!results.isEmpty, "\(name) has no scenarios")
        for result in results { #expect(result.delays == result.scenario.expectedDelays, "\(name): \(result.scenario.name)") }
    }

    @Test(
        "no policy retries a non-transient failure, waits less than Retry-After, or exceeds MaxAttempts",
        arguments: types.map(\.name))
    func invariants(_ name: String) throws {
        guard let policy = try #require(BuiltInStrategies.registry[name]).make(StrategyOptions(parameters: [:])).as((any NetworkPolicy).self) else {
            Issue.record("\(name) did not build a network policy")
            return
        }
        let failures: [FetchFailure] = [
            .timeout, .connection("refused"), .truncated, .invalidContent("x"),
            .http(status: 500, retryAfter: nil), .http(status: 404, retryAfter: nil), .http(status: 429, retryAfter: 2),
            .http(status: 429, retryAfter: nil), .http(status: 503, retryAfter: 7),
        ]
        for failure in failures {
            for jitter in [0.0, 0.3, 0.999] {
                for attempt in 1...25 {
                    guard let delay = policy.retryDelay(after: failure, attempt: attempt, jitter: jitter) else { continue }
                    #expect(failure.isTransient, "\(name) retried \(failure)")
                    #expect(attempt < policy.maxAttempts, "\(name) retried after attempt \(attempt)")
                    #expect(delay >= 0)
                    if case .http(_, let retryAfter?) = failure { #expect(delay >= retryAfter, "\(name) retried \(failure) early") }
                }
            }
        }
    }

    @Test("by default the seed's NoRetry, with a 15-second request timeout")
    func defaults() throws {
        let configuration = TimelineConfiguration.defaults
        #expect(configuration.network.requestTimeout == 15)
        #expect(try NetworkPolicyBuilder(configuration: configuration).build().name == "NoRetry")
    }

    @Test("Network.Policy selects and parameterizes a policy")
    func configured() throws {
        let configuration = Self.configuration(
            #"{"Network": {"Policy": {"Strategy": "ExponentialBackoff", "MaxAttempts": 3, "BaseDelay": 0.25}, "RequestTimeout": 2}}"#)
        let policy = try NetworkPolicyBuilder(configuration: configuration).build()
        #expect(policy.name == "ExponentialBackoff")
        #expect(policy.maxAttempts == 3)
        #expect(policy.retryDelay(after: .timeout, attempt: 2, jitter: 1) == 0.5)
        #expect(configuration.network.requestTimeout == 2)
    }

    @Test("Network.FetchDeadline bounds a whole refresh: 60 s unless set, and more than 0")
    func fetchDeadline() {
        #expect(Self.configuration(#"{"Network": {"FetchDeadline": 12.5}}"#).network.fetchDeadline == 12.5)
        #expect(Self.configuration("{}").network.fetchDeadline == 60)
        let diagnostics = ConfigurationLoader().read(data: Data(#"{"Network": {"FetchDeadline": 0}}"#.utf8), fileName: "c.json").diagnostics
        #expect(diagnostics.map(\.description) == ["c.json:1:31: error: Network.FetchDeadline: 0 must be greater than 0 (allowed: > 0 and ≤ 3600)"])
    }

    @Test("engine validate checks the policy name and parameters at their lines")
    func validation() {
        let json = """
            {"Network": {"Policy": {"Strategy": "ExponentialBackof", "MaxAttempts": 0},
                         "RequestTimeout": 0}}
            """
        let diagnostics = ConfigurationLoader().read(data: Data(json.utf8), fileName: "c.json").diagnostics.map(\.description)
        #expect(
            diagnostics == [
                "c.json:1:37: error: Network.Policy.Strategy: \"ExponentialBackof\" is not one of the allowed values: \"ExponentialBackoff\", \"NoRetry\"; did you mean \"ExponentialBackoff\"?",
                "c.json:2:32: error: Network.RequestTimeout: 0 must be greater than 0 (allowed: > 0 and ≤ 600)",
            ])
        let parameters = ConfigurationLoader().read(
            data: Data(#"{"Network": {"Policy": {"Strategy": "ExponentialBackoff", "MaxAttempts": 0, "Jitter": 1}}}"#.utf8), fileName: "c.json")
        #expect(
            parameters.diagnostics.map(\.description) == [
                "c.json:1:74: error: Network.Policy.MaxAttempts: 0 is less than the minimum 1 (allowed: ≥ 1 and ≤ 20)",
                "c.json:1:77: error: Network.Policy.Jitter: unknown key \"Jitter\". Valid keys: Strategy, MaxAttempts, BaseDelay, MaxDelay",
            ])
    }

    @Test("an unknown policy in a hand-built spec gets did-you-mean")
    func unknown() {
        #expect(throws: PipelineError.self) { try NetworkPolicyBuilder().policy(from: ComponentSpec(name: "NoRetries")) }
        do {
            _ = try NetworkPolicyBuilder().policy(from: ComponentSpec(name: "NoRetries"))
        } catch {
            #expect(error.description == "unknown network policy \"NoRetries\"; did you mean \"NoRetry\"? Registered: ExponentialBackoff, NoRetry")
        }
    }
}
