import TimelineEngineReachModel
import TimelineEngineStrategyKit

/// CacheOnly: never asks the source for a post the cache lacks. For apps that restore from what
/// they cached and leave the gap to the reader ("Load more").
public struct CacheOnlyReach: ReachStrategy, DeclaredStrategy {
    public static let type = StrategyType(
        name: "CacheOnly", kind: .reach,
        summary: "Makes no request: restores on what is cached.",
        examples: [ReachScenario(name: "makes no request", api: .mastodon, target: 400, expected: .notTried, maxRequests: 0)]
    ) { _ in
        .reach(CacheOnlyReach())
    }

    public init() {}

    public func next(toward goal: ReachGoal, after exchanges: [ReachExchange]) -> PageRequest? { nil }
}
