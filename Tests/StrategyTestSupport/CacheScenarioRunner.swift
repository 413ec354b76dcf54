import StrategyKit
import ValueTree

/// Runs a cache policy type's named scenarios: builds the policy from each scenario's
/// parameters (with `children` for a composition) and asks it what to evict.
public enum CacheScenarioRunner {
    public struct Result {
        public let scenario: CacheScenario
        public let evictions: [String]
    }

    public static func run(_ type: StrategyType, children: (CacheScenario) -> [any CachePolicy] = { _ in [] }) throws -> [Result] {
        try type.cacheScenarios.map { scenario in
            let parameters = ScenarioParameters.dictionary(scenario.parameters)
            guard case .cache(let policy) = try type.make(StrategyOptions(parameters: parameters, cachePolicies: children(scenario))) else {
                throw StrategyError("\(type.name) did not build a cache policy")
            }
            return Result(scenario: scenario, evictions: policy.evictions(from: scenario.entries, now: scenario.now))
        }
    }
}
