import TimelineEngineCacheModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// Runs a cache policy type's named scenarios: builds the policy from each scenario's
/// parameters (with `children` for a composition) and asks it what to evict.
public enum CacheScenarioRunner {
    public struct Result {
        public let scenario: CacheScenario
        public let evictions: [String]
    }

    public static func run(_ type: StrategyType, children: (CacheScenario) throws -> [any CachePolicy] = { _ in [] }) throws -> [Result] {
        try type.examples(of: CacheScenario.self).map { scenario in
            let options = StrategyOptions(parameters: scenario.parameterValues, components: try children(scenario))
            guard let policy = try type.make(options).as((any CachePolicy).self) else {
                throw StrategyError("\(type.name) did not build a cache policy")
            }
            return Result(scenario: scenario, evictions: policy.evictions(from: scenario.entries, now: scenario.now))
        }
    }
}
