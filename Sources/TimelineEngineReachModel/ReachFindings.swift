import TimelineEngineCore

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
