import TimelineEngineReachModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// Runs a network policy type's named scenarios: builds the policy from each scenario's
/// parameters and asks it for the delay after each failure in turn.
public enum NetworkScenarioRunner {
    public struct Result {
        public let scenario: NetworkScenario
        public let delays: [Double?]
    }

    public static func run(_ type: StrategyType) throws -> [Result] {
        try type.examples(of: NetworkScenario.self).map { scenario in
            guard let policy = try type.make(StrategyOptions(parameters: scenario.parameterValues)).as((any NetworkPolicy).self) else {
                throw StrategyError("\(type.name) did not build a network policy")
            }
            let delays = scenario.failures.enumerated().map { index, failure in
                policy.retryDelay(after: failure, attempt: index + 1, jitter: scenario.jitter)
            }
            return Result(scenario: scenario, delays: delays)
        }
    }
}
