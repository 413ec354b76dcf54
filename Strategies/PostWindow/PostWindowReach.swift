import ReachModel
import StrategyKit
import ValueTree

/// PostWindow: reaches the saved post in as few requests as the API allows, and loads the posts
/// around it.
///
/// - Where the source pages by post (Mastodon): the post by id (`statuses/:id`), then the page
///   next to it on the reader's side (`max_id` reading down, `min_id` catching up): two
///   requests. A deleted post is reported gone by the first, and the second begins with the
///   next surviving post, where the reader goes to; a page that meets cached posts also removes
///   the ones the server deleted between them.
/// - Where it pages only from the top (Bluesky): pages of `PageSize` from the end of the head page
///   until one holds the post, or goes past it (posts older than it), or
///   `MaxRequests` is nearly spent; then, if the post was not found, a lookup (`getPosts`) tells a
///   deleted post from one beyond the budget. For a deleted post, the neighbours that would
///   stand in for it that the cache holds unconfirmed are looked up in turn, until one exists.
/// - A post the cache holds in a part the refresh did not cover is checked with one lookup when
///   `Verify` is on: if the server deleted it, it leaves the cache, and the reader goes to the
///   next surviving post (found as above).
/// - A lookup that says neither that the post exists nor that it is gone (a 404 that is not
///   Mastodon's JSON: Takahē's answer for a boost's own id, or a proxy's page) deletes nothing:
///   the page just above the post, then the page just below the post that one ends with, tell
///   whether it is there (it begins that page) and which post follows it.
public struct PostWindowReach: ReachStrategy, DeclaredStrategy {
    public static let pageSizeParameter = Parameter<Int>(
        "PageSize", help: "Posts asked for per page; the API's own maximum caps it (Mastodon 40, Bluesky 100).", default: 100, range: 1...100)
    public static let maxRequestsParameter = Parameter<Int>(
        "MaxRequests", help: "The most requests one reach makes, the closing lookup included.", default: 40, range: 2...100)
    public static let verifyParameter = Parameter<Bool>(
        "Verify", help: "Check with one lookup that a cached post the refresh did not cover still exists.", default: true)

    public static let type = StrategyType(
        name: "PostWindow", kind: .reach,
        summary: "Fetches the saved post and the page below it by id; where the API pages only from the top, pages down to it within MaxRequests.",
        parameters: [pageSizeParameter.declaration, maxRequestsParameter.declaration, verifyParameter.declaration],
        examples: PostWindowReach.scenarios
    ) { options in
        .reach(PostWindowReach(pageSize: options(pageSizeParameter), maxRequests: options(maxRequestsParameter), verify: options(verifyParameter)))
    }

    public let pageSize: Int
    public let maxRequests: Int
    public let verify: Bool

    public init(pageSize: Int = 100, maxRequests: Int = 40, verify: Bool = true) {
        self.pageSize = max(1, pageSize)
        self.maxRequests = max(2, maxRequests)
        self.verify = verify
    }

    public func next(toward goal: ReachGoal, after exchanges: [ReachExchange]) -> PageRequest? {
        let limit = min(pageSize, goal.maxPageSize)
        if goal.pagesByPost, goal.isLookupInconclusive(in: exchanges), !goal.isGone(by: exchanges) {
            return existenceByPages(goal, exchanges, limit: limit)
        }
        if goal.isCached {
            guard verify else { return nil }
            guard !exchanges.isEmpty else { return .post(goal.postId) }
            guard goal.isGone(by: exchanges) else { return nil }
            return afterGone(goal, exchanges, limit: limit)
        }
        if goal.pagesByPost {
            switch exchanges.count {
            case 0: return .post(goal.postId)
            case 1: return goal.pageAhead(limit: limit)
            default: return nil
            }
        }
        if goal.isGone(by: exchanges) { return afterGone(goal, exchanges, limit: limit) }
        if goal.isReached(by: exchanges) || exchanges.contains(where: \.request.isLookup) { return nil }
        let cursor = goal.topCursor(after: exchanges)
        guard let cursor, !goal.isPassed(by: exchanges), exchanges.count < maxRequests - 1 else { return .post(goal.postId) }
        return .top(cursor: cursor, limit: limit)
    }

    /// After a lookup that said neither (a 404 not in Mastodon's shape): the page just above the
    /// post, then the page just below the post that page ends with, which begins with the post if
    /// it exists, and otherwise with the post the reader goes to.
    private func existenceByPages(_ goal: ReachGoal, _ exchanges: [ReachExchange], limit: Int) -> PageRequest? {
        guard let above = exchanges.first(where: { $0.request.isPage(above: goal.postId) }) else {
            return .above(post: goal.postId, limit: limit)
        }
        guard let last = above.answer.posts.last?.id else { return nil }
        return exchanges.contains { $0.request.isPage(below: last) } ? nil : .below(post: last, limit: limit)
    }

    /// After a lookup said the post is gone: where the source pages by post, the page next to
    /// it on the reader's side; else the unconfirmed stand-ins, one lookup each, within the budget.
    private func afterGone(_ goal: ReachGoal, _ exchanges: [ReachExchange], limit: Int) -> PageRequest? {
        if goal.pagesByPost {
            let asked = exchanges.contains { exchange in
                switch exchange.request {
                case .below(let post, _), .above(let post, _): post == goal.postId
                default: false
                }
            }
            return asked ? nil : goal.pageAhead(limit: limit)
        }
        guard exchanges.count < maxRequests else { return nil }
        return goal.nextStandInToCheck(after: exchanges).map { .post($0) }
    }

    static let scenarios: [ReachScenario] = [
        ReachScenario(
            name: "Mastodon: a post 360 posts below the head page is reached in two requests", api: .mastodon, target: 400,
            expected: .reached, maxRequests: 2),
        ReachScenario(
            name: "Mastodon: a deleted post is reported gone, and the page below it is loaded", api: .mastodon, target: 400,
            deleted: true, expected: .gone, maxRequests: 2),
        ReachScenario(
            name: "Bluesky: pages of 100 from the top reach a post 360 posts below the head page", api: .bluesky, target: 400,
            expected: .reached, maxRequests: 4),
        ReachScenario(
            name: "Bluesky: a deleted post is passed by time, and a lookup reports it gone", api: .bluesky, target: 400,
            deleted: true, expected: .gone, maxRequests: 5),
        ReachScenario(
            name: "Bluesky, an algorithmic feed: times pass nothing, and pages go on until they hold the post", api: .bluesky,
            target: 400, algorithmic: true, expected: .reached, maxRequests: 4),
        ReachScenario(
            name: "Bluesky: a post beyond the budget is not reached, and the lookup says it exists", api: .bluesky, target: 900,
            expected: .unreached, maxRequests: 3, parameters: ["MaxRequests": Value.Member(value: .integer(3))]),
        ReachScenario(
            name: "Takahē: a lookup answered with an HTML 404; pages say the post is there", api: .mastodon, target: 400,
            lookupsConclusive: false, expected: .reached, maxRequests: 3),
        ReachScenario(
            name: "Takahē: a lookup answered with an HTML 404; pages say the post is gone", api: .mastodon, target: 400,
            deleted: true, lookupsConclusive: false, expected: .gone, maxRequests: 3),
        ReachScenario(
            name: "Mastodon: a cached post the refresh did not cover is checked, and found", api: .mastodon, target: 400,
            cachedAround: true, expected: .reached, maxRequests: 1),
        ReachScenario(
            name: "Bluesky: a cached post deleted since leaves the cache", api: .bluesky, target: 400, deleted: true,
            cachedAround: true, expected: .gone, maxRequests: 1),
    ]
}
