import ReachModel
import StrategyKit
import TimelineCore
import ValueTree

/// A named example of a strategy at work: a timeline, a snapshot, parameters, and what the
/// strategy must answer: the post, and where given its method, confidence, placement and
/// explanation. The conformance suite runs every registered strategy's scenarios.
public struct StrategyScenario: StrategyExample {
    public let name: String
    public let timeline: Timeline
    public let snapshot: PositionSnapshot?
    /// The reader's direction, as the request carries it.
    public let direction: ReadingDirection?
    /// What reaching the post learned, as the request carries it.
    public let findings: ReachFindings
    public let parameters: Value.Dictionary
    /// The post the strategy must choose, or nil when it must propose nothing.
    public let expectedPostId: String?
    public let expectedMethod: RestorationMethod?
    /// The confidence the strategy must give, worked out from its documented formula; checked
    /// to within 1e-6. The silent-restore decision depends on it.
    public let expectedConfidence: Double?
    public let expectedPlacement: Placement?
    /// The explanation, word for word.
    public let expectedExplanation: String?

    public init(
        name: String, timeline: Timeline, snapshot: PositionSnapshot?, direction: ReadingDirection? = nil,
        findings: ReachFindings = ReachFindings(), parameters: Value.Dictionary = [:], expectedPostId: String?,
        expectedMethod: RestorationMethod? = nil, expectedConfidence: Double? = nil,
        expectedPlacement: Placement? = nil, expectedExplanation: String? = nil
    ) {
        self.name = name
        self.timeline = timeline
        self.snapshot = snapshot
        self.direction = direction
        self.findings = findings
        self.parameters = parameters
        self.expectedPostId = expectedPostId
        self.expectedMethod = expectedMethod
        self.expectedConfidence = expectedConfidence
        self.expectedPlacement = expectedPlacement
        self.expectedExplanation = expectedExplanation
    }
}

extension StrategyScenario {
    public var parameterValues: Value.Dictionary { parameters }

    /// The request the scenario describes.
    public var request: RestorationRequest {
        RestorationRequest(snapshot: snapshot, index: TimelineIndex(timeline), direction: direction, findings: findings)
    }
}
