import Foundation
import TimelineEngineCore
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// WeightedVote: every stage votes for its candidate with its `Weight`; the post with the
/// highest total wins (on a tie, the one whose best voter is more confident, then the earlier
/// stage). The result's confidence is the weighted mean of its voters' confidences, and its
/// method and placement are those of its most confident voter.
public struct WeightedVoteStrategy: RestorationStage, DeclaredStrategy {
    public static let type = StrategyType(
        name: "WeightedVote", kind: .restoration,
        summary: "Every stage votes with its Weight; the post with the highest total wins.",
        composes: .restoration,
        examples: WeightedVoteStrategy.scenarios
    ) { options in
        guard !options.children.isEmpty else { throw StrategyError("WeightedVote needs at least one stage") }
        return .restoration(WeightedVoteStrategy(stages: options.children))
    }

    public let stages: [any RestorationStage]

    public init(stages: [any RestorationStage]) {
        self.stages = stages
    }

    public func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth: Int) -> Candidate? {
        struct Tally {
            var total = 0.0
            var weightedConfidence = 0.0
            var best: Candidate
            var firstStage: Int
            var traces: [Int] = []
        }
        var tallies: [Int: Tally] = [:]
        for (order, stage) in stages.enumerated() {
            let (candidate, position) = CompositionStep.run(stage, request, trace: &trace, depth: depth) { $0 == nil ? "no candidate" : "outvoted" }
            guard let candidate else { continue }
            var tally = tallies[candidate.index] ?? Tally(best: candidate, firstStage: order)
            tally.total += stage.weight
            tally.weightedConfidence += stage.weight * candidate.confidence
            if candidate.confidence > tally.best.confidence { tally.best = candidate }
            tally.traces.append(position)
            tallies[candidate.index] = tally
        }
        let winner = tallies.values.max { a, b in
            if a.total != b.total { return a.total < b.total }
            if a.best.confidence != b.best.confidence { return a.best.confidence < b.best.confidence }
            return a.firstStage > b.firstStage
        }
        guard let winner else { return nil }
        for position in winner.traces {
            trace[position].verdict = "chosen: \(String(format: "%g", winner.total)) of the votes"
        }
        var result = winner.best
        result.confidence = winner.total > 0 ? min(1, winner.weightedConfidence / winner.total) : winner.best.confidence
        result.explanation += " (\(winner.traces.count) stage\(winner.traces.count == 1 ? "" : "s") voted for it)"
        return result
    }

    static let scenarios: [StrategyScenario] = {
        let (posts, snapshot) = StrategyScenario.sixPosts
        return [
            StrategyScenario(
                name: "two stages agree: the weighted mean of their confidences, the method of the more confident",
                timeline: Timeline(posts: posts), snapshot: snapshot, expectedPostId: "p3", expectedMethod: .exactMatch,
                expectedConfidence: (1 * 1 + 3 * 0.8) / 4,
                stages: [ExampleStage("ExactMatch"), ExampleStage("TemporalProximity", StrategyScenario.parameterValues(numbers: ["Weight": 3]))]),
            StrategyScenario(
                name: "the post is deleted: the one voter decides", timeline: Timeline(posts: posts.filter { $0.id != "p3" }),
                snapshot: snapshot, expectedPostId: "p4", expectedMethod: .temporalProximity, expectedConfidence: 0.8 * (1 - 60.0 / 3600),
                stages: [ExampleStage("ExactMatch"), ExampleStage("TemporalProximity")]),
        ]
    }()
}
