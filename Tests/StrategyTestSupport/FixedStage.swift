import TimelineEngineCore
import TimelineEngineRestorationModel

/// A stage that always proposes the same candidate (or nothing), for composition tests.
public struct FixedStage: RestorationStage {
    public let name: String
    public let index: Int?
    public let confidence: Double
    public let weight: Double

    public init(name: String, index: Int?, confidence: Double, weight: Double = 1) {
        self.name = name
        self.index = index
        self.confidence = confidence
        self.weight = weight
    }

    public func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth: Int) -> Candidate? {
        index.map { Candidate(index: $0, confidence: confidence, method: .fallback, placement: .postAtTop, strategy: name, explanation: name) }
    }
}
