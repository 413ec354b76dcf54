import Foundation
import TimelineCore
import ValueTree

/// A named example of a reach strategy at work, run by the conformance suite: a server's feed of
/// `feedSize` posts one minute apart (`s0` the newest), a device that has just fetched its head
/// page, and the saved post `s<target>` it lacks.
public struct ReachScenario: Sendable {
    /// The API shape of the simulated server.
    public enum API: String, Sendable {
        case mastodon, bluesky
    }

    public let name: String
    public let api: API
    public let feedSize: Int
    /// The posts of the head page just fetched.
    public let headPage: Int
    /// The index of the post to reach.
    public let target: Int
    /// True when the post was deleted from the feed.
    public let deleted: Bool
    /// True when the device cached the post and the 40 below it earlier (a window the refresh
    /// did not cover).
    public let cachedAround: Bool
    /// True for an algorithmic feed: display order is not time order (each post's time is
    /// another post's, drawn by a fixed permutation).
    public let algorithmic: Bool
    /// False for a server whose lookups of posts it does not have answer neither the post nor
    /// that it is gone (an HTML 404, as Takahē's).
    public let lookupsConclusive: Bool
    /// How the run must end.
    public let expected: ReachRun.Outcome
    /// The most requests it may make.
    public let maxRequests: Int
    /// The strategy's parameters.
    public let parameters: Value.Dictionary

    public init(name: String, api: API, feedSize: Int = 1_000, headPage: Int = 40, target: Int, deleted: Bool = false,
                cachedAround: Bool = false, algorithmic: Bool = false, lookupsConclusive: Bool = true, expected: ReachRun.Outcome,
                maxRequests: Int, parameters: Value.Dictionary = [:]) {
        self.cachedAround = cachedAround
        self.lookupsConclusive = lookupsConclusive
        self.algorithmic = algorithmic
        self.name = name
        self.api = api
        self.feedSize = feedSize
        self.headPage = headPage
        self.target = target
        self.deleted = deleted
        self.expected = expected
        self.maxRequests = maxRequests
        self.parameters = parameters
    }

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
        let posts = (0..<feedSize).map { Post(id: "s\($0)", createdAt: base.addingTimeInterval(Double(-60 * minutes($0))), author: "a\($0 % 7)",
                                              text: "scenario post \($0)") }
        let gone: Set<String> = deleted ? ["s\(target)"] : []
        var feed: PagedTimeline = api == .mastodon ? .mastodon(posts, deleted: gone) : .bluesky(posts, deleted: gone)
        feed.lookupsConclusive = lookupsConclusive
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
        var goal = ReachGoal(postId: "s\(target)", postCreatedAt: feed.entries[min(target, feed.entries.count - 1)].createdAt,
                             pagesByPost: feed.pagesByPost, maxPageSize: feed.maxPageSize, headCursor: head.cursor,
                             headLastPost: head.posts.last?.id, cached: Set(cache.map(\.id)))
        goal.isCached = cache.contains { $0.id == goal.postId }
        var run = ReachRun(goal: goal, strategy: strategy)
        while let request = run.next() { run.record(request, answer: feed.answer(request)) }
        let merged = run.merge(into: cache, gapsBelow: gaps)
        return Result(run: run, posts: merged.posts, gaps: TimelineGap.gaps(in: merged.posts, below: merged.gapsBelow))
    }
}
