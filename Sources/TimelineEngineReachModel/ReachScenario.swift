import Foundation
import TimelineEngineCore
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// A named example of a reach strategy at work, run by the conformance suite: a server's feed of
/// `feedSize` posts one minute apart (`s0` the newest), a device that has just fetched its head
/// page, and the saved post `s<target>` it lacks.
public struct ReachScenario: StrategyExample {
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
    /// How a Bluesky-shaped server makes and takes cursors.
    public let cursors: FeedCursors
    /// How the run must end.
    public let expected: ReachRun.Outcome
    /// The most requests it may make.
    public let maxRequests: Int
    /// The strategy's parameters.
    public let parameters: Value.Dictionary

    public init(
        name: String, api: API, feedSize: Int = 1_000, headPage: Int = 40, target: Int, deleted: Bool = false,
        cachedAround: Bool = false, algorithmic: Bool = false, lookupsConclusive: Bool = true, cursors: FeedCursors = .timeKeyed,
        expected: ReachRun.Outcome, maxRequests: Int, parameters: Value.Dictionary = [:]
    ) {
        self.cursors = cursors
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
}

extension ReachScenario {
    public var parameterValues: Value.Dictionary { parameters }
}
