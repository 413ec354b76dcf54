import Foundation

/// Merges what a source returned into the cached timeline: posts are deduplicated by id, the
/// source's display order is kept, edits replace the cached version, and a cached post the
/// source no longer has is removed only where the answer vouches for it.
///
/// An answer vouches for what it shows to be next to each other: its posts, one after the other,
/// with the posts it was asked next to (`Anchors`) and, for a head page, the top of the feed.
/// Where two of these that the cache holds come one after the other in the answer (with only
/// posts new to the cache between them), and in the same order in the cache, a cached post
/// between them that the answer lacks is gone. Nothing else is removed: not by the times the
/// posts claim (an author's client sets them, and an algorithmic feed is not in time order),
/// and not where the answer's order disagrees with the cache's.
public struct TimelineMerge: Sendable, Equatable {
    /// Which cached posts an answer speaks for.
    public enum Coverage: String, Sendable, Equatable {
        /// The whole timeline (a file): a cached post not in the answer is gone.
        case complete
        /// The newest page (a first request, no cursor): it begins at the top of the feed, so it
        /// also speaks for the cached posts shown above the first one it shares with the cache.
        case head
        /// A page from the middle (a cursor, `max_id`, `min_id`): it speaks for the cached posts
        /// between posts it shares with the cache (or its anchors), one after the other.
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
        /// continuing a page that ended with it). A window's only.
        public var above: String?
        /// The post just below the page's last post (a page asked for with `min_id` of it, or a
        /// head page asked for with `since_id` of it that did not fill up).
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
        var cachedIndex: [String: Int] = [:]
        for (index, post) in cached.enumerated() where cachedIndex[post.id] == nil { cachedIndex[post.id] = index }
        // A page asked next to a cached post sits by it. A post of the page that the cache holds
        // on the other side of that post (a repost shown again further down, a server's repeat
        // across pages) is a repeat: it stays where the cache has it and does not move the page
        // there (a page below the head page's last post, repeating its sixth post, was placed
        // inside the head page, 40 older posts above the reader).
        let aboveIndex = coverage == .window ? anchors.above.flatMap { cachedIndex[$0] } : nil
        let belowIndex = coverage == .window || coverage == .head ? anchors.below.flatMap { cachedIndex[$0] } : nil
        func isRepeat(_ id: String) -> Bool {
            guard let index = cachedIndex[id], id != anchors.above, id != anchors.below else { return false }
            return (aboveIndex.map { index < $0 } ?? false) || (belowIndex.map { index > $0 } ?? false)
        }
        var seen = Set<String>()
        let incoming = fetched.filter { !isRepeat($0.id) && seen.insert($0.id).inserted }

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

        // The answer as a run of the source's feed: the anchor above, its posts, the anchor
        // below. Each member the cache holds, in the run's order, with its place in the cache;
        // a head page begins at the top of the feed, place -1.
        var run: [String] = []
        if let above = anchors.above, coverage == .window { run.append(above) }
        run += incoming.map(\.id)
        if let below = anchors.below, coverage == .window || coverage == .head { run.append(below) }
        let inRun = Set(run)
        var members: [Int] = coverage == .head ? [-1] : []
        for id in run { if let index = cachedIndex[id] { members.append(index) } }

        var gone = Set<Int>()
        switch coverage {
        case .complete:
            for (index, post) in cached.enumerated() where !inRun.contains(post.id) { gone.insert(index) }
        case .lookup:
            break
        case .head, .window:
            // Two members one after the other in the run, in the same order in the cache: the
            // cached posts between them that the run lacks are gone.
            for (upper, lower) in zip(members, members.dropFirst()) where upper < lower {
                for index in (upper + 1)..<lower where !inRun.contains(cached[index].id) { gone.insert(index) }
            }
        }

        // Where the answer goes: in place of the span of the cache its members cover (from the
        // top for a head page), the cached posts it did not remove before it above and the rest
        // below; with no member cached, a head page goes on top and any other answer above the
        // first cached post older than its newest.
        let placed = members.filter { $0 >= 0 }
        let spanStart: Int
        if coverage == .head {
            spanStart = 0
        } else if let first = placed.min() {
            spanStart = first
        } else if let newest = incoming.map(\.createdAt).max() {
            spanStart = cached.firstIndex { $0.createdAt < newest } ?? cached.count
        } else {
            spanStart = cached.count
        }
        // Cached anchors keep their place in the run: above or below the answer's posts.
        var block: [Post] = []
        if coverage == .window, let above = anchors.above, let index = cachedIndex[above], !seen.contains(above) {
            block.append(cached[index])
        }
        block += merged
        // (A request that names one post as both, `max_id=X&min_id=X`, places it once.)
        if coverage == .window || coverage == .head, let below = anchors.below, let index = cachedIndex[below], !seen.contains(below),
            below != anchors.above || coverage != .window
        {
            block.append(cached[index])
        }
        let blockIds = Set(block.map(\.id))

        var above: [Post] = []
        var below: [Post] = []
        var removed: [String] = []
        var retained: [String] = []
        var placedOnce = Set<String>()
        for (index, post) in cached.enumerated() where !blockIds.contains(post.id) && placedOnce.insert(post.id).inserted {
            if gone.contains(index) {
                removed.append(post.id)
                continue
            }
            retained.append(post.id)
            if index < spanStart { above.append(post) } else { below.append(post) }
        }
        posts = above + block + below
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
        // (A page that begins with its anchor, as one that includes the post it was asked
        // below, is contiguous through it.)
        if let first = page.first, let above = anchors.above, first.id != above { next[above] = first.id }
        if let last = page.last, let below = anchors.below, last.id != below { next[last.id] = below }
        var gaps = Set<String>()
        for (upper, lower) in zip(merged, merged.dropFirst()) {
            if next[upper.id] == lower.id { continue }
            if let a = place[upper.id], let b = place[lower.id], a.index < b.index, a.run == b.run { continue }
            gaps.insert(upper.id)
        }
        return gaps
    }
}
