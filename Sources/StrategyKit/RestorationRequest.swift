import TimelineCore

/// The input of a restoration: the saved snapshot (if any) and the current timeline's index.
public struct RestorationRequest: Sendable {
    public var snapshot: PositionSnapshot?
    public var index: TimelineIndex

    public init(snapshot: PositionSnapshot?, index: TimelineIndex) {
        self.snapshot = snapshot
        self.index = index
    }
}
