import Foundation
import Testing
import TimelineEngineBestConfidence
import TimelineEngineCore
import TimelineEngineRestorationModel
import TimelineEngineStrategyTestSupport

@Suite("BestConfidence", .timeLimit(.minutes(10)))
struct BestConfidenceTests {
    @Test("the most confident candidate wins; the earlier stage on a tie")
    func best() {
        let request = RestorationRequest(
            snapshot: nil,
            index: TimelineIndex(
                Timeline(
                    posts: (0..<5).map {
                        Post(id: "p\($0)", createdAt: Date(timeIntervalSince1970: 0))
                    })))
        let stage = BestConfidenceStrategy(stages: [
            FixedStage(name: "A", index: 1, confidence: 0.4), FixedStage(name: "B", index: 2, confidence: 0.8),
            FixedStage(name: "C", index: 3, confidence: 0.8),
        ])
        var trace: [StageVerdict] = []
        let chosen = stage.propose(request, trace: &trace, depth: 0)
        #expect(chosen?.index == 2)
        #expect(chosen?.strategy == "B")
        #expect(trace[1].verdict == "chosen: the most confident candidate")
    }
}
