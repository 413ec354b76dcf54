import Foundation
import TimelineEngineCore
import TimelineEngineReachModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

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
    /// For a composition's scenario: the stages it combines, built through the registry.
    public let stages: [ExampleStage]

    public init(
        name: String, timeline: Timeline, snapshot: PositionSnapshot?, direction: ReadingDirection? = nil,
        findings: ReachFindings = ReachFindings(), parameters: Value.Dictionary = [:], expectedPostId: String?,
        expectedMethod: RestorationMethod? = nil, expectedConfidence: Double? = nil,
        expectedPlacement: Placement? = nil, expectedExplanation: String? = nil, stages: [ExampleStage] = []
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
        self.stages = stages
    }
}

extension StrategyScenario {
    public var parameterValues: Value.Dictionary { parameters }

    /// Six posts a minute apart, newest first, and the snapshot of the fourth (`p3`, read three
    /// minutes before the newest): the timeline the compositions' examples share. With `p3`
    /// deleted, `p2` and `p4` are a minute from it either way.
    public static let sixPosts: (posts: [Post], snapshot: PositionSnapshot) = {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let posts = (0..<6).map { Post(id: "p\($0)", createdAt: base.addingTimeInterval(Double(-60 * $0)), text: "post \($0)", height: 100) }
        let snapshot = PositionSnapshot(
            postId: "p3", postCreatedAt: posts[3].createdAt, viewportY: -30, contentOffset: 330, index: 3, timelineCount: 6)
        return (posts, snapshot)
    }()

    /// The request the scenario describes.
    public var request: RestorationRequest {
        RestorationRequest(snapshot: snapshot, index: TimelineIndex(timeline), direction: direction, findings: findings)
    }
}
