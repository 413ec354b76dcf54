import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineFirstMatch
import TimelineEngineRestorationModel
import TimelineEngineStrategyTestSupport

let request = RestorationRequest(
    snapshot: nil,
    index: TimelineIndex(
        Timeline(
            posts: (0..<5).map {
                Post(id: "p\($0)", createdAt: Date(timeIntervalSince1970: 0))
            })))

@Suite("FirstMatch", .timeLimit(.minutes(10)))
struct FirstMatchTests {
    @Test("the first candidate reaching the minimum wins, and the trace says why")
    func firstConfident() {
        let stage = FirstMatchStrategy(
            stages: [
                FixedStage(name: "A", index: nil, confidence: 0), FixedStage(name: "B", index: 1, confidence: 0.3),
                FixedStage(name: "C", index: 2, confidence: 0.7), FixedStage(name: "D", index: 3, confidence: 0.9),
            ],
            minimumConfidence: 0.5)
        var trace: [StageVerdict] = []
        #expect(stage.propose(request, trace: &trace, depth: 0)?.index == 2)
        #expect(trace.map(\.verdict) == ["no candidate", "passed over: confidence 0.30 below 0.50", "chosen"])
    }

    @Test("when none reaches the minimum, the last stage that answered decides")
    func lastAnswer() {
        let stage = FirstMatchStrategy(
            stages: [
                FixedStage(name: "A", index: 1, confidence: 0.3), FixedStage(name: "B", index: 4, confidence: 0.1),
                FixedStage(name: "C", index: nil, confidence: 0),
            ], minimumConfidence: 0.5)
        var trace: [StageVerdict] = []
        #expect(stage.propose(request, trace: &trace, depth: 0)?.index == 4)
        #expect(trace[1].verdict == "chosen: the last stage that answered (no candidate reached 0.50)")
    }
}
