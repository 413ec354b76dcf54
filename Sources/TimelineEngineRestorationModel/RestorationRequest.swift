import TimelineEngineCore
import TimelineEngineReachModel

/// The input of a restoration: the saved snapshot (if any), the current timeline's index, the
/// way the reader reads, and what the source said when the saved post was looked for.
public struct RestorationRequest: Sendable {
    public var snapshot: PositionSnapshot?
    public var index: TimelineIndex
    /// The way the reader's own saves moved (older: down a newest-first feed; newer: catching
    /// up); nil while they show none. Where a post is gone, the reader goes on in it.
    public var direction: ReadingDirection?
    /// What reaching the saved post learned from the source: whether it is gone, and which post
    /// follows it there.
    public var findings: ReachFindings

    public init(snapshot: PositionSnapshot?, index: TimelineIndex, direction: ReadingDirection? = nil, findings: ReachFindings = ReachFindings()) {
        self.snapshot = snapshot
        self.index = index
        self.direction = direction
        self.findings = findings
    }
}
