/// How a restoration found its post.
public struct RestorationMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The method as outputs write it (`exact_match`); a strategy from outside the engine names
    /// its own.
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The saved post itself.
    public static let exactMatch = RestorationMethod(rawValue: "exact_match")
    /// A recorded neighbour of the saved post.
    public static let neighborAnchor = RestorationMethod(rawValue: "neighbor_anchor")
    /// The post created closest in time.
    public static let temporalProximity = RestorationMethod(rawValue: "temporal_proximity")
    /// The most similar text.
    public static let contentSimilarity = RestorationMethod(rawValue: "content_similarity")
    /// A position chosen without finding the saved post or a stand-in.
    public static let fallback = RestorationMethod(rawValue: "fallback")

    /// The method of a strategy named `strategyName` (`AuthorRun` → `author_run`), for
    /// strategies that add a method of their own.
    public static func named(_ strategyName: String) -> RestorationMethod {
        var result = ""
        for (offset, character) in strategyName.enumerated() {
            if character.isUppercase, offset > 0 { result += "_" }
            result += character.lowercased()
        }
        return RestorationMethod(rawValue: result)
    }

    public var description: String { rawValue }
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

    public init(
        postId: String, index: Int, contentOffset: Double, viewportY: Double, method: RestorationMethod,
        strategy: String, confidence: Double, explanation: String
    ) {
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
