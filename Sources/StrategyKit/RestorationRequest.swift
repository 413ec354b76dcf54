import TimelineCore

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

/// What the source said while the saved post was reached: the facts a restoration cannot read
/// from the timeline alone. Empty when nothing was asked.
public struct ReachFindings: Sendable, Equatable {
    /// Posts the source says no longer exist: the saved post, or cached posts checked on the way.
    public var gone: Set<String>
    /// For a gone saved post, the first surviving post the source has just below it (a page asked
    /// below the post begins with it) and just above it; nil where nothing was asked.
    public var survivorBelow: String?
    public var survivorAbove: String?

    public init(gone: Set<String> = [], survivorBelow: String? = nil, survivorAbove: String? = nil) {
        self.gone = gone
        self.survivorBelow = survivorBelow
        self.survivorAbove = survivorAbove
    }

    /// The source's survivor on the side the reader goes to next.
    public func survivor(ahead direction: ReadingDirection) -> String? {
        direction.ahead == .below ? survivorBelow : survivorAbove
    }
}
