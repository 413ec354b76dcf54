import SyncModel

/// A named example of a merge policy at work, run by the conformance suite: writes to one
/// register, and which of them the policy must keep.
public struct MergeScenario: Sendable {
    public let name: String
    public let records: [PositionRecord]
    /// The index in `records` of the write that must win.
    public let expectedWinner: Int

    public init(name: String, records: [PositionRecord], expectedWinner: Int) {
        self.name = name
        self.records = records
        self.expectedWinner = expectedWinner
    }
}
