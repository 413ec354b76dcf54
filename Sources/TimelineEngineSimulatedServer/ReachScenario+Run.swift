import Foundation
import TimelineEngineCore
import TimelineEngineReachModel

/// A reach scenario run against its feed, served by a `PagedTimeline`: what the conformance
/// suite checks every reach strategy's scenarios with.
extension ReachScenario {
    /// What a run did: its outcome, requests, and the merged cache.
    public struct Result: Sendable {
        public var run: ReachRun
        /// The device's timeline after the pages were merged.
        public var posts: [Post]
        public var gaps: [TimelineGap]
    }

    /// The feed: `feedSize` posts, one minute apart, newest first.
    public var feed: PagedTimeline {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        // Algorithmic: post n takes the time of post (n × 7919) mod feedSize, a permutation when
        // feedSize is not a multiple of the prime 7919.
        let minutes = { (n: Int) in self.algorithmic ? (n * 7919) % self.feedSize : n }
        let posts = (0..<feedSize).map {
            Post(
                id: "s\($0)", createdAt: base.addingTimeInterval(Double(-60 * minutes($0))), author: "a\($0 % 7)",
                text: "scenario post \($0)")
        }
        let gone: Set<String> = deleted ? ["s\(target)"] : []
        var feed: PagedTimeline = api == .mastodon ? .mastodon(posts, deleted: gone) : .bluesky(posts, deleted: gone)
        feed.lookupsConclusive = lookupsConclusive
        feed.cursors = cursors
        return feed
    }

    /// Runs `strategy` against the feed, from the head page.
    public func run(_ strategy: any ReachStrategy) -> Result {
        let feed = self.feed
        let head = feed.head(limit: headPage)
        var cache = head.posts
        var gaps = Set<String>()
        if cachedAround {
            // The window cached earlier: the post (even if deleted since) and the 40 below it.
            let start = min(target, feed.entries.count - 1)
            let window = Array(feed.entries[start..<min(feed.entries.count, start + 41)])
            if let last = cache.last, !window.isEmpty { gaps.insert(last.id) }
            cache += window.filter { window in !cache.contains { $0.id == window.id } }
        }
        var goal = ReachGoal(
            postId: "s\(target)", postCreatedAt: feed.entries[min(target, feed.entries.count - 1)].createdAt,
            pagesByPost: feed.pagesByPost, maxPageSize: feed.maxPageSize, headCursor: head.cursor,
            headLastPost: head.posts.last?.id, cached: Set(cache.map(\.id)))
        goal.isCached = cache.contains { $0.id == goal.postId }
        goal.headPageSpacing = ReachGoal.spacing(of: head.posts)
        var run = ReachRun(goal: goal, strategy: strategy)
        while let request = run.next() { run.record(request, answer: feed.answer(request)) }
        let merged = run.merge(into: cache, gapsBelow: gaps)
        return Result(run: run, posts: merged.posts, gaps: TimelineGap.gaps(in: merged.posts, below: merged.gapsBelow))
    }
}
