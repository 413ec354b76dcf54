import TimelineCore
import ValueTree

/// A named example of a strategy at work: a timeline, a snapshot, parameters, and what the
/// strategy must answer. The conformance suite runs every registered strategy's scenarios.
public struct StrategyScenario: Sendable {
    public let name: String
    public let timeline: Timeline
    public let snapshot: PositionSnapshot?
    public let parameters: Value.Dictionary
    /// The post the strategy must choose, or nil when it must propose nothing.
    public let expectedPostId: String?
    public let expectedMethod: RestorationMethod?

    public init(name: String, timeline: Timeline, snapshot: PositionSnapshot?, parameters: Value.Dictionary = [:],
                expectedPostId: String?, expectedMethod: RestorationMethod? = nil) {
        self.name = name
        self.timeline = timeline
        self.snapshot = snapshot
        self.parameters = parameters
        self.expectedPostId = expectedPostId
        self.expectedMethod = expectedMethod
    }
}
