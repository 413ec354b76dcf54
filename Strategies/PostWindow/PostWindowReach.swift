import TimelineEngineReachModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// PostWindow: reaches the saved post in as few requests as the API allows, and loads the posts
/// around it.
///
/// - Where the source pages by post (Mastodon): the post by id (`statuses/:id`), then the page
///   next to it on the reader's side (`max_id` reading down, `min_id` catching up): two
///   requests. A deleted post is reported gone by the first, and the second begins with the
///   next surviving post, where the reader goes to; a page that meets cached posts also removes
///   the ones the server deleted between them.
/// - Where it pages only from the top (Bluesky) and the server's cursors are time-keyed
///   (`TimeKeyedCursor`: the reference AppView's `<ms>__<cid>`), with `TimeCursors` on: first the
///   page that begins a few posts above the saved post's time (one request where the cursor is
///   honoured). The answer is used only if it shows the cursor was honoured: no post newer than
///   the cursor, in time order. If it holds the post, that is all; if it covers the post's time
///   without it, a lookup (`getPosts`) tells a deleted post (the page then holds the posts on
///   either side of it) from one that is not where its time says; if every post is newer, the
///   next page continues it. An answer set aside, or a post not where its time says, is paged
///   for from the top as below.
/// - Where it pages only from the top otherwise: pages of `PageSize` from the end of the head
///   page until one holds the post, or goes past it (posts older than it), or `MaxRequests` is
///   nearly spent; then, if the post was not found, a lookup (`getPosts`) tells a deleted post
///   from one beyond the budget. For a deleted post, the neighbours that would stand in for it
///   that the cache holds unconfirmed are looked up in turn, until one exists.
/// - A post the cache holds in a part the refresh did not cover is checked with one lookup when
///   `Verify` is on: if the server deleted it, it leaves the cache, and the reader goes to the
///   next surviving post (found as above; on Bluesky with time-keyed cursors, by the page at its
///   time, which holds its neighbours even where the cache ends just below it).
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
    public static let timeCursorsParameter = Parameter<Bool>(
        "TimeCursors",
        help:
            "Where the API pages only from the top and its cursors are time-keyed (Bluesky's AppView), ask first for the page at the saved post's time; an answer that does not show the cursor honoured is set aside.",
        default: true)

    public static let type = StrategyType(
        name: "PostWindow", kind: .reach,
        summary: "Fetches the saved post and the page below it by id; where the API pages only from the top, pages down to it within MaxRequests.",
        parameters: [
            pageSizeParameter.declaration, maxRequestsParameter.declaration, verifyParameter.declaration, timeCursorsParameter.declaration,
        ],
        examples: PostWindowReach.scenarios
    ) { options in
        .reach(
            PostWindowReach(
                pageSize: options(pageSizeParameter), maxRequests: options(maxRequestsParameter), verify: options(verifyParameter),
                timeCursors: options(timeCursorsParameter)))
    }

    public let pageSize: Int
    public let maxRequests: Int
    public let verify: Bool
    public let timeCursors: Bool

    public init(pageSize: Int = 100, maxRequests: Int = 40, verify: Bool = true, timeCursors: Bool = true) {
        self.pageSize = max(1, pageSize)
        self.maxRequests = max(2, maxRequests)
        self.verify = verify
        self.timeCursors = timeCursors
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
        guard timeCursors, let keyed = goal.timeKeyedPage(limit: limit) else { return fromTop(goal, exchanges, limit: limit) }
        let chain = goal.timeKeyedChain(in: exchanges).indices
        switch goal.timeKeyedVerdict(in: exchanges) {
        case nil:
            return keyed
        case .holdsPost:
            return nil
        case .above(let cursor?) where exchanges.count < maxRequests - 1:
            return .top(cursor: cursor, limit: limit)
        case .above, .coversTime:
            guard exchanges.contains(where: { $0.request == .post(goal.postId) }) else { return .post(goal.postId) }
            // Gone: the pages hold the posts on either side of it.
            if goal.isGone(by: exchanges) || goal.isLookupInconclusive(in: exchanges) { return nil }
            // There, but not where its time says: pages from the top.
            return fromTop(goal, exchanges, settingAside: chain, lookedUpFirst: true, limit: limit)
        case .setAside:
            return fromTop(goal, exchanges, settingAside: chain, limit: limit)
        }
    }

    /// Pages from the top, from the end of the head page, leaving out the pages in `settingAside`;
    /// then a lookup unless one was made first (`lookedUpFirst`: the post exists).
    private func fromTop(
        _ goal: ReachGoal, _ exchanges: [ReachExchange], settingAside chain: Range<Int> = 0..<0, lookedUpFirst: Bool = false, limit: Int
    ) -> PageRequest? {
        if goal.isGone(by: exchanges) { return afterGone(goal, exchanges, limit: limit) }
        if goal.isReached(by: exchanges) { return nil }
        var rest = exchanges
        rest.removeSubrange(chain)
        let lookedUp = rest.contains(where: \.request.isLookup)
        if lookedUp, !lookedUpFirst { return nil }
        let pages = rest.filter { !$0.request.isLookup }
        let cursor = goal.topCursor(after: pages)
        guard let cursor, !goal.isPassed(by: pages), exchanges.count < maxRequests - 1 else { return lookedUp ? nil : .post(goal.postId) }
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
    /// it on the reader's side; else the page at its time (time-keyed cursors), or the
    /// unconfirmed stand-ins, one lookup each, within the budget.
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
        // By time where the server's cursors allow: the page at the post's time holds the posts
        // on either side of it, whatever the cache holds.
        if timeCursors, let keyed = goal.timeKeyedPage(limit: limit) {
            switch goal.timeKeyedVerdict(in: exchanges) {
            case nil: return keyed
            case .above(let cursor?): return .top(cursor: cursor, limit: limit)
            case .setAside: break
            default: return nil
            }
        }
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
            name: "Bluesky, time-keyed cursors: the page at the post's time reaches a post 860 posts below the head page", api: .bluesky,
            target: 900, expected: .reached, maxRequests: 1),
        ReachScenario(
            name: "Bluesky, time-keyed cursors: the page at a deleted post's time covers it, and a lookup reports it gone", api: .bluesky,
            target: 400, deleted: true, expected: .gone, maxRequests: 2),
        ReachScenario(
            name: "Bluesky, a server that takes only its own cursors: the page by time is refused, and pages from the top reach the post",
            api: .bluesky, target: 400, cursors: .issuedOnly, expected: .reached, maxRequests: 5),
        ReachScenario(
            name: "Bluesky, TimeCursors off: pages of 100 from the top reach the post", api: .bluesky, target: 400, expected: .reached,
            maxRequests: 4, parameters: ["TimeCursors": Value.Member(value: .bool(false))]),
        ReachScenario(
            name: "Bluesky, opaque cursors: pages of 100 from the top reach a post 360 posts below the head page", api: .bluesky,
            target: 400, cursors: .opaque, expected: .reached, maxRequests: 4),
        ReachScenario(
            name: "Bluesky, opaque cursors: a deleted post is passed by time, and a lookup reports it gone", api: .bluesky, target: 400,
            deleted: true, cursors: .opaque, expected: .gone, maxRequests: 5),
        ReachScenario(
            name: "Bluesky, an algorithmic feed: times pass nothing, and pages go on until they hold the post", api: .bluesky,
            target: 400, algorithmic: true, cursors: .opaque, expected: .reached, maxRequests: 4),
        ReachScenario(
            name: "Bluesky, an algorithmic feed with time-keyed cursors: the page by time is out of time order, set aside", api: .bluesky,
            target: 400, algorithmic: true, expected: .reached, maxRequests: 5),
        ReachScenario(
            name: "Bluesky: a post beyond the budget is not reached, and the lookup says it exists", api: .bluesky, target: 900,
            cursors: .opaque, expected: .unreached, maxRequests: 3, parameters: ["MaxRequests": Value.Member(value: .integer(3))]),
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
            name: "Bluesky: a cached post deleted since leaves the cache, and the page at its time holds its neighbours", api: .bluesky,
            target: 400, deleted: true, cachedAround: true, expected: .gone, maxRequests: 2),
        ReachScenario(
            name: "Bluesky, opaque cursors: a cached post deleted since leaves the cache", api: .bluesky, target: 400, deleted: true,
            cachedAround: true, cursors: .opaque, expected: .gone, maxRequests: 1),
    ]
}
