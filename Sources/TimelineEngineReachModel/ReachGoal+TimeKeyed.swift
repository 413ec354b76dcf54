import Foundation
import TimelineEngineCore

/// What the pages asked by time showed (`ReachGoal.timeKeyedVerdict(in:)`).
public enum TimeKeyedVerdict: Sendable, Equatable {
    /// They hold the saved post.
    case holdsPost
    /// They cover the saved post's time (from above it to below it) without it: the post is gone,
    /// or is not where its time says (a lookup tells which).
    case coversTime
    /// Every post so far is newer than the saved post: the next page continues at `cursor` (nil:
    /// the feed ends there).
    case above(cursor: String?)
    /// The answer does not show that the cursor was honoured (empty, refused, posts newer than the
    /// cursor's time, or out of time order): it is set aside, and pages come from the top.
    case setAside
}

extension ReachGoal {
    /// How much newer than a post's time the posts of a page may be and still count as the page
    /// honouring a cursor at that time: a sort time may differ from the time a post claims (the
    /// AppView sorts a post dated ahead of when it was indexed by the latter).
    public static let timeKeyedTolerance: TimeInterval = 300

    /// The mean time between the posts of `page` (newest first), or nil for fewer than two.
    public static func spacing(of page: [Post]) -> TimeInterval? {
        guard page.count > 1, let newest = page.first?.createdAt, let oldest = page.last?.createdAt, newest > oldest else { return nil }
        return newest.timeIntervalSince(oldest) / Double(page.count - 1)
    }

    /// The page to ask first by time, or nil when the source does not page by time: on a source
    /// that pages only from the top whose head cursor is time-keyed (`TimeKeyedCursor`), a
    /// cursor three posts' worth (`headPageSpacing`, at least a second, at most an hour; a
    /// minute when unknown) above the saved post's time, when that is below the head page.
    public func timeKeyedPage(limit: Int) -> PageRequest? {
        guard !pagesByPost, let createdAt = postCreatedAt, let head = headCursor.flatMap(TimeKeyedCursor.init) else { return nil }
        let lead = min(3_600, max(1, 3 * (headPageSpacing ?? 20)))
        let time = createdAt.addingTimeInterval(lead)
        guard time < head.time else { return nil }
        return .keyed(cursor: head.moved(to: time).description, limit: limit)
    }

    /// The page asked by time and the pages from the top that continued it, each from the cursor
    /// the one before ended with: empty when none was asked.
    public func timeKeyedChain(in exchanges: [ReachExchange]) -> ArraySlice<ReachExchange> {
        guard let start = exchanges.firstIndex(where: \.request.isKeyed) else { return [] }
        var end = start + 1
        while end < exchanges.count, case .top(let cursor, _) = exchanges[end].request, cursor == exchanges[end - 1].answer.cursor {
            end += 1
        }
        return exchanges[start..<end]
    }

    /// What the pages asked by time (`timeKeyedChain(in:)`) showed of the saved post; nil when
    /// none was asked.
    public func timeKeyedVerdict(in exchanges: [ReachExchange]) -> TimeKeyedVerdict? {
        let chain = timeKeyedChain(in: exchanges)
        guard let first = chain.first, case .keyed(let text, _) = first.request else { return nil }
        guard let cursor = TimeKeyedCursor(text), let createdAt = postCreatedAt else { return .setAside }
        let posts = chain.flatMap(\.answer.posts)
        guard !first.answer.posts.isEmpty, let last = posts.last else { return .setAside }
        // Honoured: no post newer than the cursor, and the posts in time order.
        var previous = cursor.time
        for post in posts {
            guard post.createdAt <= previous.addingTimeInterval(Self.timeKeyedTolerance) else { return .setAside }
            previous = post.createdAt
        }
        if posts.contains(where: { $0.id == postId }) { return .holdsPost }
        guard last.createdAt > createdAt, let next = chain.last?.answer.cursor else { return .coversTime }
        return .above(cursor: next)
    }

    /// The exchanges whose answers count, for the post reached and the pages merged: all of
    /// them but the pages asked by time when their answer is set aside (`TimeKeyedVerdict`),
    /// whose posts may be in any order or newer than asked, and would place the feed wrongly.
    public func usableExchanges(_ exchanges: [ReachExchange]) -> [ReachExchange] {
        guard timeKeyedVerdict(in: exchanges) == .setAside else { return exchanges }
        var kept = exchanges
        kept.removeSubrange(timeKeyedChain(in: exchanges).indices)
        return kept
    }

    /// For a saved post gone from the pages asked by time that cover its time: the first post no
    /// newer than it (below) and the last post newer than it (above).
    func timeKeyedSurvivors(in exchanges: [ReachExchange]) -> (below: String?, above: String?) {
        guard timeKeyedVerdict(in: exchanges) == .coversTime, let createdAt = postCreatedAt else { return (nil, nil) }
        let posts = timeKeyedChain(in: exchanges).flatMap(\.answer.posts).filter { $0.id != postId }
        return (posts.first { $0.createdAt <= createdAt }?.id, posts.last { $0.createdAt > createdAt }?.id)
    }
}

extension PageRequest {
    /// True for a page asked by a cursor the client made (`keyed`).
    public var isKeyed: Bool {
        if case .keyed = self { return true }
        return false
    }
}
