import TimelineEngineCore
import TimelineEngineSessionFormat

/// The timeline as a session's `timeline`, `insert`, `remove` and `update` events have made it,
/// with its index rebuilt only after a change.
public struct ReplayTimeline {
    public private(set) var posts: [Post] = []
    public let viewportHeight: Double
    private var cachedIndex: TimelineIndex?
    /// The index before the last change, whose work the next index reuses.
    private var staleIndex: TimelineIndex?

    public init(viewportHeight: Double) {
        self.viewportHeight = viewportHeight
    }

    /// Applies a timeline-changing event; other events are ignored. Returns whether the
    /// timeline changed.
    ///
    /// - `timeline` replaces every post.
    /// - `insert` inserts at its index; an index past the end appends.
    /// - `remove` removes every post with one of the ids; unknown ids are ignored.
    /// - `update` replaces every post with the same id; posts not in the timeline are ignored.
    @discardableResult
    public mutating func apply(_ kind: SessionEvent.Kind) -> Bool {
        switch kind {
        case .timeline(_, let newPosts):
            posts = newPosts
        case .insert(let index, let newPosts):
            guard !newPosts.isEmpty else { return false }
            posts.insert(contentsOf: newPosts, at: min(index, posts.count))
        case .remove(let ids):
            let gone = Set(ids)
            let before = posts.count
            posts.removeAll { gone.contains($0.id) }
            guard posts.count != before else { return false }
        case .update(let updated):
            var replacements: [String: Post] = [:]
            for post in updated { replacements[post.id] = post }
            var changed = false
            for position in posts.indices {
                if let replacement = replacements[posts[position].id], replacement != posts[position] {
                    posts[position] = replacement
                    changed = true
                }
            }
            guard changed else { return false }
        case .scroll, .lifecycle, .restore, .sync, .fetch:
            return false
        }
        staleIndex = cachedIndex ?? staleIndex
        cachedIndex = nil
        return true
    }

    /// The index of the current timeline (heights from the events, estimated when missing).
    public mutating func index() -> TimelineIndex {
        if let cachedIndex { return cachedIndex }
        let built = TimelineIndex(Timeline(posts: posts, viewportHeight: viewportHeight))
        if let staleIndex { UnreadCount.reuseFingerprints(in: built, from: staleIndex) }
        staleIndex = nil
        cachedIndex = built
        return built
    }
}
