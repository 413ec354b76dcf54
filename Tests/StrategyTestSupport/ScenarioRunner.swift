import TimelineEngineCore
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// Runs a strategy type's named scenarios: builds the stage with the scenario's parameters
/// (defaults filled in) and returns what it proposed.
public enum ScenarioRunner {
    public struct Result {
        public let scenario: StrategyScenario
        public let candidate: Candidate?
        public var chosenPostId: String? {
            candidate.map { scenario.timeline.posts[$0.index].id }
        }
    }

    /// `children` builds a composition's stages (`StrategyScenario.stages`), through a registry.
    public static func run(_ type: StrategyType, children: (StrategyScenario) throws -> [any RestorationStage] = { _ in [] }) throws -> [Result] {
        try type.examples(of: StrategyScenario.self).map { scenario in
            var parameters = type.defaults
            for (key, member) in scenario.parameters { parameters[key] = member }
            let built = try type.make(StrategyOptions(parameters: parameters, components: try children(scenario)))
            guard let stage = built.as((any RestorationStage).self) else {
                throw StrategyError("\(type.name) built no restoration stage for its scenario \"\(scenario.name)\"")
            }
            var trace: [StageVerdict] = []
            let request = scenario.request
            return Result(scenario: scenario, candidate: stage.propose(request, trace: &trace, depth: 0))
        }
    }
}
