import TimelineEngineCore

/// Where a positioning stage should put a chosen post.
public enum Placement: Sendable, Equatable {
    /// The post stands in for the saved one: it takes the snapshot's `viewportY`.
    case standIn
    /// The post goes to the top of the viewport (`viewportY` 0).
    case postAtTop
    /// The viewport goes to this content offset (clamped); the post is the anchor there.
    case contentOffset(Double)
    /// Content offset 0.
    case topOfTimeline
}

/// A restoration stage's proposal: a post, how sure the stage is, and why.
public struct Candidate: Sendable, Equatable {
    public var index: Int
    /// In [0, 1].
    public var confidence: Double
    public var method: RestorationMethod
    public var placement: Placement
    /// The registered name of the stage that proposed it.
    public var strategy: String
    /// One line saying why.
    public var explanation: String

    public init(
        index: Int, confidence: Double, method: RestorationMethod, placement: Placement, strategy: String,
        explanation: String
    ) {
        self.index = index
        self.confidence = min(1, max(0, confidence))
        self.method = method
        self.placement = placement
        self.strategy = strategy
        self.explanation = explanation
    }
}

/// What one stage did during a restoration, for `--explain`.
public struct StageVerdict: Sendable, Equatable {
    public var stage: String
    public var candidate: Candidate?
    /// `chosen`, `passed over: confidence 0.31 below 0.5`, `no candidate: …`.
    public var verdict: String
    /// Nesting depth inside compositions.
    public var depth: Int

    public init(stage: String, candidate: Candidate?, verdict: String, depth: Int = 0) {
        self.stage = stage
        self.candidate = candidate
        self.verdict = verdict
        self.depth = depth
    }
}
