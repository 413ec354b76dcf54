import Foundation
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// FirstMatch: runs its stages in order; the first candidate whose confidence reaches
/// `MinimumConfidence` wins. When none does, the last stage that answered decides (normally
/// the Fallback). `A > B > C` in a spec is FirstMatch(A, B, C).
public struct FirstMatchStrategy: RestorationStage, DeclaredStrategy {
    /// The confidence a candidate needs.
    public static let minimumConfidenceParameter = Parameter<Double>(
        "MinimumConfidence",
        help: "The confidence (0 to 1) a candidate needs before it is chosen; below it, the next stage is tried.",
        default: 0.5, range: 0...1, inherits: RestorationSettings.inheritedKey(\.$minimumConfidence))

    public static let type = StrategyType(
        name: "FirstMatch", kind: .restoration,
        summary: "Tries its stages in order; the first confident enough candidate wins, else the last answer.",
        parameters: [minimumConfidenceParameter.declaration],
        composes: .restoration,
        examples: FirstMatchStrategy.scenarios
    ) { options in
        guard !options.children.isEmpty else { throw StrategyError("FirstMatch needs at least one stage") }
        return .restoration(FirstMatchStrategy(stages: options.children, minimumConfidence: options(minimumConfidenceParameter)))
    }

    public let stages: [any RestorationStage]
    public let minimumConfidence: Double

    public init(stages: [any RestorationStage], minimumConfidence: Double = minimumConfidenceParameter.defaultValue) {
        self.stages = stages
        self.minimumConfidence = minimumConfidence
    }

    public func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth: Int) -> Candidate? {
        var lastAnswer: (candidate: Candidate, trace: Int)?
        for stage in stages {
            let (candidate, position) = CompositionStep.run(stage, request, trace: &trace, depth: depth) { candidate in
                guard let candidate else { return "no candidate" }
                if candidate.confidence >= minimumConfidence { return "chosen" }
                return "passed over: confidence \(format(candidate.confidence)) below \(format(minimumConfidence))"
            }
            guard let candidate else { continue }
            if candidate.confidence >= minimumConfidence { return candidate }
            lastAnswer = (candidate, position)
        }
        guard let lastAnswer else { return nil }
        trace[lastAnswer.trace].verdict = "chosen: the last stage that answered (no candidate reached \(format(minimumConfidence)))"
        return lastAnswer.candidate
    }

    private func format(_ value: Double) -> String { String(format: "%.2f", value) }

    static let scenarios: [StrategyScenario] = {
        let (posts, snapshot) = StrategyScenario.sixPosts
        let deleted = Timeline(posts: posts.filter { $0.id != "p3" })
        let stages = [ExampleStage("ExactMatch"), ExampleStage("TemporalProximity")]
        return [
            StrategyScenario(
                name: "the post is there: the first stage is confident enough", timeline: Timeline(posts: posts), snapshot: snapshot,
                expectedPostId: "p3", expectedMethod: .exactMatch, expectedConfidence: 1, stages: stages),
            StrategyScenario(
                name: "the post is deleted: the next stage's candidate, a minute from it, reaches the minimum", timeline: deleted,
                snapshot: snapshot, expectedPostId: "p4", expectedMethod: .temporalProximity, expectedConfidence: 0.8 * (1 - 60.0 / 3600),
                stages: stages),
            StrategyScenario(
                name: "no candidate reaches the minimum: the last stage that answered decides", timeline: deleted, snapshot: snapshot,
                parameters: StrategyScenario.parameterValues(numbers: ["MinimumConfidence": 0.9]), expectedPostId: "p4",
                expectedMethod: .temporalProximity, stages: stages),
        ]
    }()
}
