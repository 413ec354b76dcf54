/// A place in a cached timeline where posts are missing: the source has posts between `above`
/// and `below` that were never loaded (a head page that did not reach the older cached posts,
/// or a window fetched around a post). An app draws "Load more" there.
public struct TimelineGap: Sendable, Hashable {
    /// The post just above the gap (newer, in a reverse-chronological feed).
    public var above: String
    /// The post just below the gap.
    public var below: String

    public init(above: String, below: String) {
        self.above = above
        self.below = below
    }

    /// The gaps of `posts` (in display order) marked by the ids of the posts with a gap below them.
    public static func gaps(in posts: [Post], below marked: Set<String>) -> [TimelineGap] {
        guard !marked.isEmpty, posts.count > 1 else { return [] }
        var gaps: [TimelineGap] = []
        for position in 0..<(posts.count - 1) where marked.contains(posts[position].id) {
            gaps.append(TimelineGap(above: posts[position].id, below: posts[position + 1].id))
        }
        return gaps
    }
}
