/// How a restoration found its post.
public enum RestorationMethod: String, Sendable, CaseIterable, Equatable {
    case exactMatch = "exact_match"
    case neighborAnchor = "neighbor_anchor"
    case temporalProximity = "temporal_proximity"
    case contentSimilarity = "content_similarity"
    case fallback = "fallback"
}

/// Where to put the reader back, why, and how sure the engine is.
public struct Restoration: Sendable, Equatable {
    public var postId: String
    public var index: Int
    /// The content offset to scroll to.
    public var contentOffset: Double
    /// Where the post's top edge lands in the viewport.
    public var viewportY: Double
    public var method: RestorationMethod
    /// The registered name of the stage that decided.
    public var strategy: String
    /// In [0, 1].
    public var confidence: Double
    /// One line saying why.
    public var explanation: String

    public init(postId: String, index: Int, contentOffset: Double, viewportY: Double, method: RestorationMethod,
                strategy: String, confidence: Double, explanation: String) {
        self.postId = postId
        self.index = index
        self.contentOffset = contentOffset
        self.viewportY = viewportY
        self.method = method
        self.strategy = strategy
        self.confidence = confidence
        self.explanation = explanation
    }
}

/// A choice offered to the reader ("Continue where you left off · 2 h ago").
public struct RestorationSuggestion: Sendable, Equatable {
    public var title: String
    public var description: String
    public var postId: String
    public var index: Int
    public var confidence: Double

    public init(title: String, description: String, postId: String, index: Int, confidence: Double) {
        self.title = title
        self.description = description
        self.postId = postId
        self.index = index
        self.confidence = confidence
    }
}
