import Foundation

/// One post of a timeline.
public struct Post: Sendable, Equatable, Hashable {
    /// The platform's id. Unique within a timeline.
    public var id: String
    public var createdAt: Date
    public var author: String?
    public var text: String?
    /// Height in points, when the app knows it; otherwise `HeightEstimate` supplies one.
    public var height: Double?
    /// When this entry is a boost (a reblog, a repost): the id of the post it boosts. The entry
    /// has its own id, its time is the boost's, its author the booster, its text the original's.
    public var boostOf: String?

    public init(id: String, createdAt: Date, author: String? = nil, text: String? = nil, height: Double? = nil, boostOf: String? = nil) {
        self.id = id
        self.createdAt = createdAt
        self.author = author
        self.text = text
        self.height = height
        self.boostOf = boostOf
    }

    /// The height used for layout: the known height, or the estimate from the text.
    public var effectiveHeight: Double {
        if let height, height.isFinite, height > 0 { return min(height, GeometryLimits.maximumPostHeight) }
        return min(HeightEstimate.height(forText: text), GeometryLimits.maximumPostHeight)
    }
}
