import Foundation

/// Where the reader was: the post at the anchor, its place in the viewport and around it.
/// This is the JSON contract `engine restore --position` reads.
public struct PositionSnapshot: Sendable, Equatable {
    /// The ids of the posts recorded around the anchor, nearest first.
    public struct Neighbors: Sendable, Equatable {
        public var above: [String]
        public var below: [String]

        public init(above: [String] = [], below: [String] = []) {
            self.above = above
            self.below = below
        }
    }

    public var postId: String
    public var postCreatedAt: Date?
    /// The post's top edge in points from the viewport's top; negative when the post starts
    /// above the viewport.
    public var viewportY: Double
    /// Points from the top of the content to the top of the viewport.
    public var contentOffset: Double
    public var viewportHeight: Double?
    /// The post's display index and the timeline's length when the snapshot was taken.
    public var index: Int?
    public var timelineCount: Int?
    public var neighbors: Neighbors
    /// The post's text (or a fingerprint of it), for content similarity.
    public var text: String?
    /// The post's author, for strategies that stand in another post by the same author.
    public var author: String?
    public var savedAt: Date?
    public var deviceId: String?

    public init(
        postId: String, postCreatedAt: Date? = nil, viewportY: Double = 0, contentOffset: Double = 0,
        viewportHeight: Double? = nil, index: Int? = nil, timelineCount: Int? = nil,
        neighbors: Neighbors = Neighbors(), text: String? = nil, author: String? = nil, savedAt: Date? = nil,
        deviceId: String? = nil
    ) {
        self.postId = postId
        self.postCreatedAt = postCreatedAt
        self.viewportY = viewportY
        self.contentOffset = contentOffset
        self.viewportHeight = viewportHeight
        self.index = index
        self.timelineCount = timelineCount
        self.neighbors = neighbors
        self.text = text
        self.author = author
        self.savedAt = savedAt
        self.deviceId = deviceId
    }
}
