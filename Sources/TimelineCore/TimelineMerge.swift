import Foundation

/// Merges what a source returned into the cached timeline: posts are deduplicated by id, the
/// source's display order is kept, edits replace the cached version, and a cached post the
/// source no longer has is removed only where the source is authoritative.
public struct TimelineMerge: Sendable, Equatable {
    /// Which cached posts an answer speaks for.
    public enum Coverage: String, Sendable, Equatable {
        /// The whole timeline (a file): a cached post not in the answer is gone.
        case complete
        /// The newest page (a first request, no cursor): it speaks for every cached post at
        /// least as new as its oldest post, or shown above the last post it shares with the cache.
        case head
        /// A page from the middle (a cursor or max_id): it speaks for the cached posts between
        /// its newest and oldest posts.
        case window
        /// Posts looked up one by one: each speaks only for itself, placed by time.
        case lookup
    }

    /// The merged timeline, in display order.
    public var posts: [Post]
    /// Ids new to the cache, in display order.
    public var added: [String]
    /// Ids whose text, author or time changed (edits), in display order.
    public var updated: [String]
    /// Ids the source no longer has, within the range it speaks for, in cached order.
    public var removed: [String]
    /// Cached posts the answer left alone because they lie outside the range it speaks for.
    public var retained: [String]
    /// Posts in both, unchanged.
    public var unchanged: Int
    /// The ids of the merged posts with a gap below them: the source has posts between them and
    /// the next post that were never loaded.
    public var gapsBelow: Set<String>

    /// Where a fetched page sits in the source's timeline, when the request says so.
    public struct Anchors: Sendable, Equatable {
        /// The post just above the page's first post (a page asked for with `max_id` of it, or
        /// continuing a page that ended with it).
        public var above: String?
        /// The post just below the page's last post (a page asked for with `min_id` of it).
        public var below: String?

        public init(above: String? = nil, below: String? = nil) {
            self.above = above
            self.below = below
        }
    }

    /// The gaps of the merged timeline, top to bottom.
    public var gaps: [TimelineGap] { TimelineGap.gaps(in: posts, below: gapsBelow) }

    /// True when the merge changed nothing.
    public var isEmpty: Bool { added.isEmpty && updated.isEmpty && removed.isEmpty }

    /// Merges `fetched` (in the source's display order) into `cached` (in display order), whose
    /// gaps lie below the posts in `cachedGaps`.
    ///
    /// Two neighbours of the merged timeline are contiguous when the page has them one after the
    /// other (or next to one of its `anchors`), or when the cache had them in that order with no
    /// gap between them; elsewhere there is a gap. A whole timeline (`complete`) has none.
    public init(cached: [Post], fetched: [Post], coverage: Coverage, cachedGaps: Set<String> = [], anchors: Anchors = Anchors()) {
        var seen = Set<String>()
        let incoming = fetched.filter { seen.insert($0.id).inserted }
        var cachedIndex: [String: Int] = [:]
        for (index, post) in cached.enumerated() where cachedIndex[post.id] == nil { cachedIndex[post.id] = index }

        var merged: [Post] = []
        merged.reserveCapacity(incoming.count + cached.count)
        var added: [String] = []
        var updated: [String] = []
        var unchanged = 0
        for post in incoming {
            guard let index = cachedIndex[post.id] else {
                added.append(post.id)
                merged.append(post)
                continue
            }
            let old = cached[index]
            var new = post
            if new.height == nil { new.height = old.height }
            if old.text != new.text || old.author != new.author || old.createdAt != new.createdAt {
                updated.append(post.id)
            } else {
                unchanged += 1
            }
            merged.append(new)
        }

        // The range the answer speaks for, by time and by position in the cache.
        let times = incoming.map(\.createdAt)
        let oldest = times.min()
        let newest = times.max()
        let sharedPositions = incoming.compactMap { cachedIndex[$0.id] }
        let lastShared = sharedPositions.max()
        let firstShared = sharedPositions.min()
        func authoritative(_ post: Post, at index: Int) -> Bool {
            switch coverage {
            case .complete:
                return true
            case .head:
                guard let oldest else { return false }
                return post.createdAt >= oldest || (lastShared.map { index < $0 } ?? false)
            case .lookup:
                return false
            case .window:
                guard let oldest, let newest else { return false }
                let byTime = post.createdAt >= oldest && post.createdAt <= newest
                let byPosition = firstShared.map { first in lastShared.map { index > first && index < $0 } ?? false } ?? false
                return byTime || byPosition
            }
        }

        var above: [Post] = []
        var below: [Post] = []
        var removed: [String] = []
        var retained: [String] = []
        // `seen` holds the answer's ids: each cached post not among them is placed once.
        for (index, post) in cached.enumerated() where seen.insert(post.id).inserted {
            if authoritative(post, at: index) {
                removed.append(post.id)
            } else {
                retained.append(post.id)
                // Only a window or a lookup can leave cached posts above what it returned.
                if coverage == .window || coverage == .lookup, let newest, post.createdAt > newest, firstShared.map({ index < $0 }) ?? true {
                    above.append(post)
                } else {
                    below.append(post)
                }
            }
        }
        posts = above + merged + below
        gapsBelow = coverage == .complete ? [] : Self.gaps(in: posts, cached: cached, cachedGaps: cachedGaps, page: incoming, anchors: anchors)
        self.added = added
        self.updated = updated
        self.removed = removed
        self.retained = retained
        self.unchanged = unchanged
    }

    /// The posts of `merged` with a gap below them, by the rule in `init`.
    private static func gaps(in merged: [Post], cached: [Post], cachedGaps: Set<String>, page: [Post], anchors: Anchors) -> Set<String> {
        guard merged.count > 1 else { return [] }
        // Each cached post's place and its run of contiguous posts.
        var place: [String: (index: Int, run: Int)] = [:]
        var run = 0
        for (index, post) in cached.enumerated() where place[post.id] == nil {
            place[post.id] = (index, run)
            if cachedGaps.contains(post.id) { run += 1 }
        }
        var next: [String: String] = [:]
        for (upper, lower) in zip(page, page.dropFirst()) { next[upper.id] = lower.id }
        if let first = page.first, let above = anchors.above { next[above] = first.id }
        if let last = page.last, let below = anchors.below { next[last.id] = below }
        var gaps = Set<String>()
        for (upper, lower) in zip(merged, merged.dropFirst()) {
            if next[upper.id] == lower.id { continue }
            if let a = place[upper.id], let b = place[lower.id], a.index < b.index, a.run == b.run { continue }
            gaps.insert(upper.id)
        }
        return gaps
    }
}
