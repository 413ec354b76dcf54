import Foundation
import TimelineEngineCore

/// One request a reach strategy asks of a timeline source.
public enum PageRequest: Sendable, Hashable, CustomStringConvertible {
    /// The next page from the top of the feed, continuing at `cursor` (Mastodon: `max_id` of the
    /// previous page's last post; Bluesky: the previous answer's `cursor`).
    case top(cursor: String, limit: Int)
    /// The page just below a post (Mastodon `max_id`): the posts after it in the feed.
    case below(post: String, limit: Int)
    /// The page just above a post (Mastodon `min_id`): the posts before it in the feed.
    case above(post: String, limit: Int)
    /// One post by id (Mastodon `GET /api/v1/statuses/:id`, Bluesky `app.bsky.feed.getPosts`):
    /// whether it still exists.
    case post(String)
    /// A page from a cursor the client made rather than one the server gave: a time-keyed
    /// cursor (`TimeKeyedCursor`) just above the saved post's time, sent as `cursor`. Its answer is
    /// used only if it shows it was honoured (`ReachGoal.timeKeyedVerdict(in:)`).
    case keyed(cursor: String, limit: Int)

    public var description: String {
        switch self {
        case .top(let cursor, let limit): "page of \(limit) from the top after \(cursor)"
        case .below(let post, let limit): "page of \(limit) below \(post)"
        case .above(let post, let limit): "page of \(limit) above \(post)"
        case .post(let id): "post \(id)"
        case .keyed(let cursor, let limit): "page of \(limit) from the time cursor \(cursor)"
        }
    }
}

/// What a source answered to a `PageRequest`.
public struct PageAnswer: Sendable, Equatable {
    /// The posts, in the feed's display order (for `.post`, the post when it exists).
    public var posts: [Post]
    /// For a page from the top: where the next page continues (nil: the end of the feed).
    public var cursor: String?
    /// For `.post`: false when the source says the post no longer exists.
    public var found: Bool
    /// For `.post`: true when the source answered neither the post nor that it is gone (a 404
    /// that is not Mastodon's JSON, as Takahē answers for a boost's id and a proxy for anything):
    /// whether the post exists is then learned from pages.
    public var inconclusive: Bool
    /// The size of the answer's body, for the figures.
    public var bytes: Int
    /// How many posts of a longer answer than was asked for were left out (`cut(for:keeping:)`):
    /// past the last post kept, or, for a page asked above a post, before the first.
    public var cut: Int

    public init(posts: [Post], cursor: String? = nil, found: Bool = true, inconclusive: Bool = false, bytes: Int = 0, cut: Int = 0) {
        self.posts = posts
        self.cursor = cursor
        self.found = found
        self.inconclusive = inconclusive
        self.bytes = bytes
        self.cut = cut
    }

    /// The answer cut to the posts `request` asked for, counted from the post it was asked next
    /// to (the top of a page from the top or below a post, the bottom of a page above one), or
    /// as far as `keeping` and the posts asked for beyond it when the answer holds that post
    /// further on. A server that sends more than it was asked (20,000 posts for 100) costs no
    /// more than the pages asked for, and the reader's post is kept.
    public func cut(for request: PageRequest, keeping goal: String) -> PageAnswer {
        let limit: Int
        let fromEnd: Bool
        switch request {
        case .top(_, let asked), .below(_, let asked), .keyed(_, let asked): (limit, fromEnd) = (max(1, asked), false)
        case .above(_, let asked): (limit, fromEnd) = (max(1, asked), true)
        case .post(let id):
            guard posts.count > 1 else { return self }
            var answer = self
            answer.posts = [posts.first { $0.id == id } ?? posts[0]]
            answer.cut = cut + posts.count - 1
            return answer
        }
        guard posts.count > limit else { return self }
        var answer = self
        if fromEnd {
            let start = posts.lastIndex { $0.id == goal }.map { max(0, min($0 - limit, posts.count - limit)) } ?? posts.count - limit
            answer.posts = Array(posts[start...])
            answer.cut = cut + start
        } else {
            let end = posts.firstIndex { $0.id == goal }.map { min(posts.count, max($0 + 1 + limit, limit)) } ?? limit
            answer.posts = Array(posts[..<end])
            answer.cut = cut + posts.count - end
        }
        return answer
    }
}

/// A request and its answer.
public struct ReachExchange: Sendable, Equatable {
    public var request: PageRequest
    public var answer: PageAnswer

    public init(request: PageRequest, answer: PageAnswer) {
        self.request = request
        self.answer = answer
    }
}

/// The post a restore needs and is not in the cache (or is, but the refresh did not confirm it:
/// `isCached`), and what the source can do.
public struct ReachGoal: Sendable, Equatable {
    /// The post to reach.
    public var postId: String
    /// True when the cache holds the post, in a part the last refresh did not cover: the server
    /// may have deleted it since. A strategy may check it (one lookup) or leave it.
    public var isCached = false
    /// When it was written, if the saved position says: a page of older posts has passed it.
    public var postCreatedAt: Date?
    /// True when the source pages by post id (Mastodon's `max_id`, `min_id`, `statuses/:id`);
    /// false when it pages only from the top of the feed (Bluesky's `cursor`).
    public var pagesByPost: Bool
    /// The largest page the API gives (Mastodon 40, Bluesky 100).
    public var maxPageSize: Int
    /// Where pages from the top continue after the head page just fetched (Mastodon: its last
    /// post's id; Bluesky: its cursor); nil when there is none.
    public var headCursor: String?
    /// The head page's last post: the next page from the top begins just below it.
    public var headLastPost: String?
    /// The ids of the posts cached now: paging that reaches one of them has closed the gap.
    public var cached: Set<String>
    /// The way the reader reads: where the post is gone, the next post is on this side of it
    /// (below reading down, above catching up).
    public var direction: ReadingDirection = .usual
    /// The saved position's neighbours that would stand in for the post if it is gone, in the
    /// order the restoration tries them (`ReadingDirection.standInOrder`), that the cache holds
    /// without a page having confirmed them since: the server may have deleted them too.
    public var unconfirmedStandIns: [String] = []
    /// The mean time between the head page's posts (`spacing(of:)`), when known: a page asked by
    /// time begins a few posts' worth above the saved post.
    public var headPageSpacing: TimeInterval?

    public init(
        postId: String, postCreatedAt: Date? = nil, pagesByPost: Bool, maxPageSize: Int, headCursor: String?,
        headLastPost: String? = nil, cached: Set<String> = []
    ) {
        self.postId = postId
        self.headLastPost = headLastPost
        self.postCreatedAt = postCreatedAt
        self.pagesByPost = pagesByPost
        self.maxPageSize = maxPageSize
        self.headCursor = headCursor
        self.cached = cached
    }
}

/// How to reach a post the cache lacks: the requests to make, one at a time. A strategy is pure,
/// as a network policy is: it sees the goal and the answers so far and names the next request,
/// or stops; the caller makes the requests (over HTTP, or against a simulated server), retries
/// them by the network policy, and merges what came back into the cache.
public protocol ReachStrategy: Sendable {
    /// The registered name.
    var name: String { get }
    /// The next request toward `goal` after `exchanges`, or nil to stop.
    func next(toward goal: ReachGoal, after exchanges: [ReachExchange]) -> PageRequest?
}

extension ReachGoal {
    /// True when `exchanges` hold the post where it belongs: in a page, or, where the source
    /// pages by post, looked up by id (the page below it then begins just under it). A lookup
    /// on a source that pages only from the top says the post exists, not where it is. A page
    /// asked by time whose answer is set aside counts for nothing (`usableExchanges`).
    public func isReached(by exchanges: [ReachExchange]) -> Bool {
        usableExchanges(exchanges).contains { exchange in
            (pagesByPost || !exchange.request.isLookup) && exchange.answer.posts.contains { $0.id == postId }
        }
    }

    /// True when the source says the post no longer exists: a lookup said so, or the page asked
    /// just below the post just above it (the last of the page asked above it) does not begin
    /// with it.
    public func isGone(by exchanges: [ReachExchange]) -> Bool {
        if exchanges.contains(where: { $0.request == .post(postId) && !$0.answer.found && !$0.answer.inconclusive }) { return true }
        guard let next = pageAfterPostAbove(in: exchanges) else { return false }
        return next.first?.id != postId
    }

    /// True when a lookup of the post was inconclusive (`PageAnswer.inconclusive`).
    public func isLookupInconclusive(in exchanges: [ReachExchange]) -> Bool {
        exchanges.contains { $0.request == .post(postId) && $0.answer.inconclusive }
    }

    /// The post just above the goal's, as the page asked above it (`min_id`) ends.
    public func postAbove(in exchanges: [ReachExchange]) -> String? {
        exchanges.first { $0.request.isPage(above: postId) }?.answer.posts.last?.id
    }

    /// The posts of the page asked just below the post just above the goal's, when one was asked
    /// and was not empty: it begins with the goal's post if the post exists.
    public func pageAfterPostAbove(in exchanges: [ReachExchange]) -> [Post]? {
        guard let above = postAbove(in: exchanges),
            let page = exchanges.first(where: { $0.request.isPage(below: above) })?.answer.posts, !page.isEmpty
        else { return nil }
        return page
    }

    /// The page next to the post on the reader's side: below it reading down (`max_id`), above
    /// it catching up (`min_id`). Where a post is gone, this page begins with the post the
    /// reader goes to.
    public func pageAhead(limit: Int) -> PageRequest {
        direction.ahead == .below ? .below(post: postId, limit: limit) : .above(post: postId, limit: limit)
    }

    /// Sets `direction` and `unconfirmedStandIns` for `snapshot`'s post: its recorded neighbours,
    /// in the order they stand in, that `cached` holds and `confirmed` does not.
    public mutating func standIns(
        of snapshot: PositionSnapshot, direction: ReadingDirection, cached: Set<String>, confirmed: Set<String>,
        depth: Int = 5
    ) {
        self.direction = direction
        unconfirmedStandIns = direction.standInOrder(above: snapshot.neighbors.above, below: snapshot.neighbors.below, depth: depth)
            .map(\.id).filter { cached.contains($0) && !confirmed.contains($0) }
    }

    /// The next unconfirmed stand-in to look up after `exchanges`: nil once one was found to
    /// exist, or when every one was looked up.
    public func nextStandInToCheck(after exchanges: [ReachExchange]) -> String? {
        for id in unconfirmedStandIns {
            guard let answer = exchanges.first(where: { $0.request == .post(id) })?.answer else { return id }
            if answer.found { return nil }
        }
        return nil
    }

    /// Where the next page from the top continues after `exchanges`: the last such page's
    /// cursor, or the head page's; nil at the end of the feed.
    public func topCursor(after exchanges: [ReachExchange]) -> String? {
        guard let last = exchanges.last(where: { if case .top = $0.request { true } else { false } }) else { return headCursor }
        return last.answer.cursor
    }

    /// The pages from the top in `exchanges`, the head page counted.
    public func topPages(in exchanges: [ReachExchange]) -> Int {
        1 + exchanges.filter { if case .top = $0.request { true } else { false } }.count
    }

    /// True when a page in `exchanges` went past the post: its last post is older than the
    /// goal's by more than `margin` seconds. (A page that meets cached posts has not: the post
    /// may lie in another gap further down.) Only in a feed in time order: where the pages so far
    /// show a post newer than one above it by more than `margin` (an algorithmic feed), times say
    /// nothing of where the post is, and nothing is passed.
    public func isPassed(by exchanges: [ReachExchange], margin: TimeInterval = 300) -> Bool {
        guard let createdAt = postCreatedAt else { return false }
        var previous: Date?
        for exchange in exchanges where !exchange.request.isLookup {
            for post in exchange.answer.posts {
                if let previous, post.createdAt > previous.addingTimeInterval(margin) { return false }
                previous = post.createdAt
            }
        }
        return exchanges.contains { exchange in
            guard !exchange.request.isLookup, let last = exchange.answer.posts.last else { return false }
            return last.createdAt < createdAt.addingTimeInterval(-margin)
        }
    }
}

extension PageRequest {
    /// True for a lookup of one post.
    public var isLookup: Bool {
        if case .post = self { return true }
        return false
    }

    /// True for the page asked just below `post` (`max_id`).
    public func isPage(below post: String) -> Bool {
        if case .below(let id, _) = self { return id == post }
        return false
    }

    /// True for the page asked just above `post` (`min_id`).
    public func isPage(above post: String) -> Bool {
        if case .above(let id, _) = self { return id == post }
        return false
    }
}
