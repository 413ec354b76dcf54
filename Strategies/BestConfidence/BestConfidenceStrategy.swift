import Foundation
import TimelineEngineCore
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// BestConfidence: runs every stage; the most confident candidate wins (the earlier stage on a
/// tie).
public struct BestConfidenceStrategy: RestorationStage, DeclaredStrategy {
    public static let type = StrategyType(
        name: "BestConfidence", kind: .restoration,
        summary: "Runs every stage; the most confident candidate wins.",
        composes: .restoration,
        examples: BestConfidenceStrategy.scenarios
    ) { options in
        guard !options.children.isEmpty else { throw StrategyError("BestConfidence needs at least one stage") }
        return .restoration(BestConfidenceStrategy(stages: options.children))
    }

    public let stages: [any RestorationStage]

    public init(stages: [any RestorationStage]) {
        self.stages = stages
    }

    public func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth: Int) -> Candidate? {
        var best: (candidate: Candidate, trace: Int)?
        for stage in stages {
            let (candidate, position) = CompositionStep.run(stage, request, trace: &trace, depth: depth) {
                $0 == nil ? "no candidate" : "passed over: a more confident candidate won"
            }
            if let candidate, best == nil || candidate.confidence > best!.candidate.confidence {
                best = (candidate, position)
            }
        }
        guard let best else { return nil }
        trace[best.trace].verdict = "chosen: the most confident candidate"
        return best.candidate
    }

    static let scenarios: [StrategyScenario] = {
        let (posts, snapshot) = StrategyScenario.sixPosts
        // TemporalProximity first: it finds p3 too (Δt 0, confidence 0.8), and ExactMatch's 1 wins.
        let stages = [ExampleStage("TemporalProximity"), ExampleStage("ExactMatch")]
        return [
            StrategyScenario(
                name: "the post is there: the more confident of two candidates for it wins, whatever the order",
                timeline: Timeline(posts: posts), snapshot: snapshot, expectedPostId: "p3", expectedMethod: .exactMatch,
                expectedConfidence: 1, stages: stages),
            StrategyScenario(
                name: "the post is deleted: the one stage that answers wins", timeline: Timeline(posts: posts.filter { $0.id != "p3" }),
                snapshot: snapshot, expectedPostId: "p4", expectedMethod: .temporalProximity, expectedConfidence: 0.8 * (1 - 60.0 / 3600),
                stages: stages),
        ]
    }()
}
