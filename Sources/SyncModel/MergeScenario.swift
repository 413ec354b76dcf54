import StrategyKit
import ValueTree

/// A named example of a merge policy at work, run by the conformance suite: writes to one
/// register, which of them the policy must make its value, and why.
public struct MergeScenario: StrategyExample {
    public let name: String
    public let records: [PositionRecord]
    /// The index in `records` of the write that must win.
    public let expectedWinner: Int
    /// The reason the resolution must give, when the scenario says.
    public let expectedReason: String?
    /// The policy's parameters.
    public let parameters: Value.Dictionary

    public init(name: String, records: [PositionRecord], expectedWinner: Int, reason: String? = nil, parameters: Value.Dictionary = [:]) {
        self.name = name
        self.records = records
        self.expectedWinner = expectedWinner
        expectedReason = reason
        self.parameters = parameters
    }
}

extension MergeScenario {
    public var parameterValues: Value.Dictionary { parameters }
}
