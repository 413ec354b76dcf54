import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineRestorationModel
import TimelineEngineStrategyTestSupport
import TimelineEngineWeightedVote

@Suite("WeightedVote", .timeLimit(.minutes(10)))
struct WeightedVoteTests {
    @Test("the post with the highest total weight wins; confidence is the weighted mean")
    func vote() {
        let request = RestorationRequest(
            snapshot: nil,
            index: TimelineIndex(
                Timeline(
                    posts: (0..<5).map {
                        Post(id: "p\($0)", createdAt: Date(timeIntervalSince1970: 0))
                    })))
        let stage = WeightedVoteStrategy(stages: [
            FixedStage(name: "A", index: 1, confidence: 0.9, weight: 2),
            FixedStage(name: "B", index: 3, confidence: 0.6, weight: 1),
            FixedStage(name: "C", index: 3, confidence: 0.3, weight: 1.5),
        ])
        var trace: [StageVerdict] = []
        let chosen = stage.propose(request, trace: &trace, depth: 0)
        #expect(chosen?.index == 3)
        #expect(abs((chosen?.confidence ?? 0) - (0.6 * 1 + 0.3 * 1.5) / 2.5) < 1e-12)
        #expect(trace.map(\.verdict) == ["outvoted", "chosen: 2.5 of the votes", "chosen: 2.5 of the votes"])
    }

    static let request = RestorationRequest(
        snapshot: nil,
        index: TimelineIndex(
            Timeline(
                posts: (0..<5).map {
                    Post(id: "p\($0)", createdAt: Date(timeIntervalSince1970: 0))
                })))

    @Test("a tie in votes goes to the post whose best voter is more confident")
    func tieByConfidence() {
        let stage = WeightedVoteStrategy(stages: [
            FixedStage(name: "A", index: 1, confidence: 0.5),
            FixedStage(name: "B", index: 2, confidence: 0.7),
        ])
        var trace: [StageVerdict] = []
        #expect(stage.propose(Self.request, trace: &trace, depth: 0)?.index == 2)
        #expect(trace.map(\.verdict) == ["outvoted", "chosen: 1 of the votes"])
    }

    @Test("a tie in votes and confidence goes to the earlier stage")
    func tieByOrder() {
        for order in [[3, 1], [1, 3]] {
            let stage = WeightedVoteStrategy(stages: order.map { FixedStage(name: "S\($0)", index: $0, confidence: 0.6) })
            var trace: [StageVerdict] = []
            #expect(stage.propose(Self.request, trace: &trace, depth: 0)?.index == order[0])
        }
    }
}
