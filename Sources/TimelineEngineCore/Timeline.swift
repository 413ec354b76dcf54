/// Posts in display order (index 0 at the top) and the height of the viewport showing them.
public struct Timeline: Sendable, Equatable {
    public var posts: [Post]
    /// Height of the visible area in points.
    public var viewportHeight: Double

    public init(posts: [Post], viewportHeight: Double = 800) {
        self.posts = posts
        self.viewportHeight = viewportHeight
    }

    public var isEmpty: Bool { posts.isEmpty }
    public var count: Int { posts.count }
}
