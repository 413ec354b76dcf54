import TimelineEngineReachModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// OnePage: Ice Cubes' behaviour, for comparison. One page of `PageSize` around the saved post:
/// Mastodon's `max_id` of it, which holds the posts below it but not the post itself; where the
/// source pages only from the top, the one page after the head page.
public struct OnePageReach: ReachStrategy, DeclaredStrategy {
    public static let pageSizeParameter = Parameter<Int>(
        "PageSize", help: "Posts asked for; the API's own maximum caps it.", default: 40, range: 1...100)

    public static let type = StrategyType(
        name: "OnePage", kind: .reach,
        summary: "Ice Cubes' way: one page of PageSize below the saved post (max_id), or after the head page.",
        parameters: [pageSizeParameter.declaration],
        examples: [
            ReachScenario(
                name: "Mastodon: the page below the post does not hold the post", api: .mastodon, target: 400, expected: .unreached,
                maxRequests: 1),
            ReachScenario(
                name: "Bluesky: one page after the head page reaches a post just below it", api: .bluesky, target: 60,
                expected: .reached, maxRequests: 1),
        ]
    ) { options in
        .reach(OnePageReach(pageSize: options(pageSizeParameter)))
    }

    public let pageSize: Int

    public init(pageSize: Int = 40) {
        self.pageSize = max(1, pageSize)
    }

    public func next(toward goal: ReachGoal, after exchanges: [ReachExchange]) -> PageRequest? {
        guard exchanges.isEmpty, !goal.isCached else { return nil }
        let limit = min(pageSize, goal.maxPageSize)
        if goal.pagesByPost { return .below(post: goal.postId, limit: limit) }
        return goal.headCursor.map { .top(cursor: $0, limit: limit) }
    }
}
