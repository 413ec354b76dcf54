import TimelineEngineReachModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// TopPages: the Bluesky prototype's behaviour (social-app PR #11456), for comparison. Pages down
/// from the top of the feed, `MaxPages` pages in all with the head page, and gives up there.
public struct TopPagesReach: ReachStrategy, DeclaredStrategy {
    public static let maxPagesParameter = Parameter<Int>(
        "MaxPages", help: "Pages from the top, the head page included, before giving up.", default: 6, range: 1...100)
    public static let pageSizeParameter = Parameter<Int>(
        "PageSize", help: "Posts asked for per page; the API's own maximum caps it.", default: 50, range: 1...100)

    public static let type = StrategyType(
        name: "TopPages", kind: .reach,
        summary: "The Bluesky prototype's way: pages down from the top, MaxPages in all, then gives up.",
        parameters: [maxPagesParameter.declaration, pageSizeParameter.declaration],
        examples: [
            ReachScenario(name: "Bluesky: a post within six pages is reached", api: .bluesky, target: 200, expected: .reached, maxRequests: 4),
            ReachScenario(name: "Bluesky: a post beyond six pages is given up", api: .bluesky, target: 400, expected: .unreached, maxRequests: 5),
            ReachScenario(name: "Mastodon: pages by max_id from the top", api: .mastodon, target: 150, expected: .reached, maxRequests: 3),
        ]
    ) { options in
        .reach(TopPagesReach(maxPages: options(maxPagesParameter), pageSize: options(pageSizeParameter)))
    }

    public let maxPages: Int
    public let pageSize: Int

    public init(maxPages: Int = 6, pageSize: Int = 50) {
        self.maxPages = max(1, maxPages)
        self.pageSize = max(1, pageSize)
    }

    public func next(toward goal: ReachGoal, after exchanges: [ReachExchange]) -> PageRequest? {
        guard !goal.isCached, !goal.isReached(by: exchanges), goal.topPages(in: exchanges) < maxPages,
            let cursor = goal.topCursor(after: exchanges)
        else { return nil }
        return .top(cursor: cursor, limit: min(pageSize, goal.maxPageSize))
    }
}
