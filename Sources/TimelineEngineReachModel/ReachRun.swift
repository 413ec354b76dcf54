import Foundation
import TimelineEngineCore

/// One attempt to reach a post: the requests a `ReachStrategy` names, their answers, and the
/// pages they make, merged into a cache. The loader drives it over HTTP and the session replayer
/// against a simulated server, so both count and merge alike:
///
/// ```swift
/// var run = ReachRun(goal: goal, strategy: strategy)
/// while let request = run.next() { run.record(request, answer: try await source.answer(request)) }
/// let merged = run.merge(into: cached.posts, gapsBelow: cached.gapsBelow)
/// ```
public struct ReachRun: Sendable {
    /// How a run ended.
    public enum Outcome: Sendable, Equatable, CustomStringConvertible {
        /// The post is among the pages fetched.
        case reached
        /// The source says the post no longer exists.
        case gone
        /// The strategy stopped (its budget spent, or past the post) without finding it.
        case unreached
        /// The strategy made no request (CacheOnly, or a source it cannot page).
        case notTried
        /// A request failed after the network policy's retries; the message says why.
        case failed(String)

        public var description: String {
            switch self {
            case .reached: "reached"
            case .gone: "gone"
            case .unreached: "not reached"
            case .notTried: "not tried"
            case .failed(let message): "failed: \(message)"
            }
        }
    }

    /// No strategy makes more requests than this in one run, whatever it asks.
    public static let maximumRequests = 100

    public let goal: ReachGoal
    public let strategy: any ReachStrategy
    /// The requests answered, in order.
    public private(set) var exchanges: [ReachExchange] = []
    /// Requests sent, retries included.
    public private(set) var requests = 0
    /// Bytes of every answer body.
    public private(set) var bytes = 0
    public private(set) var failure: String?

    public init(goal: ReachGoal, strategy: any ReachStrategy) {
        self.goal = goal
        self.strategy = strategy
    }

    /// The next request to make, or nil when the run is over.
    public func next() -> PageRequest? {
        guard failure == nil, exchanges.count < Self.maximumRequests else { return nil }
        return strategy.next(toward: goal, after: exchanges)
    }

    /// Records an answer that took `attempts` requests, cut to the posts the request asked for
    /// (`PageAnswer.cut(for:keeping:)`), so that a run holds at most the pages it asked for.
    public mutating func record(_ request: PageRequest, answer: PageAnswer, attempts: Int = 1) {
        exchanges.append(ReachExchange(request: request, answer: answer.cut(for: request, keeping: goal.postId)))
        requests += attempts
        bytes += answer.bytes
    }

    /// Records a request that failed after `attempts` tries: the run ends.
    public mutating func fail(_ message: String, attempts: Int = 1) {
        failure = message
        requests += attempts
    }

    public var outcome: Outcome {
        if goal.isCached, !goal.isGone(by: exchanges), failure == nil,
            !goal.isLookupInconclusive(in: exchanges) || goal.isReached(by: exchanges)
        {
            return requests == 0 ? .notTried : .reached
        }
        if goal.isReached(by: exchanges) { return .reached }
        if goal.isGone(by: exchanges) { return .gone }
        if let failure { return .failed(failure) }
        return requests == 0 ? .notTried : .unreached
    }

    /// The outcome as the restoration will see it, once the pages are merged into `merged`: a
    /// post the answers held but the merge did not keep is not reached.
    public func outcome(seenIn merged: some Sequence<Post>) -> Outcome {
        let outcome = self.outcome
        guard outcome == .reached, !merged.contains(where: { $0.id == goal.postId }) else { return outcome }
        return .unreached
    }

    /// The pages fetched, each with the posts it sits next to: a page below a post begins just
    /// under it, a page above one ends just over it, a page from the top continues the page whose
    /// cursor it was asked with (the head page's, or the one before), and a page asked by time
    /// (`.keyed`) sits by itself, placed by its posts' times. Pages that follow one another make
    /// one page: each begins where the one before ended, so the run of them merges in one pass,
    /// in time proportional to the posts fetched, however many pages it took. A page cut short
    /// (`PageAnswer.cut`) ends such a run: the next one begins after posts that were left out.
    public var pages: [(posts: [Post], coverage: TimelineMerge.Coverage, anchors: TimelineMerge.Anchors)] {
        var pages: [(posts: [Post], coverage: TimelineMerge.Coverage, anchors: TimelineMerge.Anchors)] = []
        var continuingTop = false
        var lastCursor: String?
        // A page asked by time whose answer is set aside is not merged.
        for exchange in goal.usableExchanges(exchanges) where !exchange.answer.posts.isEmpty {
            let posts = exchange.answer.posts
            switch exchange.request {
            case .post:
                // Where the source pages only from the top, a lookup says whether the post
                // exists, not where it is in the feed.
                if goal.pagesByPost {
                    pages.append((posts, .lookup, TimelineMerge.Anchors()))
                    continuingTop = false
                }
            case .below(let post, _):
                pages.append((posts, .window, TimelineMerge.Anchors(above: post)))
                continuingTop = false
            case .above(let post, _):
                pages.append((posts, .window, TimelineMerge.Anchors(below: post)))
                continuingTop = false
            case .top(let cursor, _):
                if continuingTop, cursor == lastCursor, let last = pages.indices.last {
                    pages[last].posts += posts
                } else {
                    let above = cursor == goal.headCursor ? goal.headLastPost : nil
                    pages.append((posts, .window, TimelineMerge.Anchors(above: above)))
                }
                // After a cut answer, the next page does not begin where this one ends.
                continuingTop = exchange.answer.cut == 0
                lastCursor = exchange.answer.cursor
            case .keyed:
                pages.append((posts, .window, TimelineMerge.Anchors()))
                continuingTop = exchange.answer.cut == 0
                lastCursor = exchange.answer.cursor
            }
        }
        return pages
    }

    /// `cached` (with gaps below `gapsBelow`) with every page merged in, in order; a post the
    /// source says it no longer has then leaves it (its neighbours close up, its gap moving to
    /// the post above), after the pages, so that a page asked next to it still meets it.
    public func merge(into cached: [Post], gapsBelow: Set<String>) -> (posts: [Post], gapsBelow: Set<String>, added: [String], removed: [String]) {
        merge(pages, into: cached, gapsBelow: gapsBelow)
    }

    /// `merge(into:gapsBelow:)` with `pages` as this run's `pages` made them, for a caller that
    /// already has them.
    public func merge(
        _ pages: [(posts: [Post], coverage: TimelineMerge.Coverage, anchors: TimelineMerge.Anchors)], into cached: [Post],
        gapsBelow: Set<String>
    ) -> (posts: [Post], gapsBelow: Set<String>, added: [String], removed: [String]) {
        var posts = cached
        var gaps = gapsBelow
        var added: [String] = []
        var removed: [String] = []
        for page in pages {
            let merge = TimelineMerge(cached: posts, fetched: page.posts, coverage: page.coverage, cachedGaps: gaps, anchors: page.anchors)
            posts = merge.posts
            gaps = merge.gapsBelow
            added += merge.added
            removed += merge.removed
        }
        for id in findings.gone.sorted() {
            guard let position = posts.firstIndex(where: { $0.id == id }) else { continue }
            if gaps.remove(id) != nil, position > 0 { gaps.insert(posts[position - 1].id) }
            posts.remove(at: position)
            removed.append(id)
        }
        return (posts, gaps, added, removed)
    }

    /// What the answers told of the goal's post, for the restoration: whether the source has it
    /// no more, and then the posts that follow it there (the first of a page asked below it, the
    /// last of a page asked above it).
    public var findings: ReachFindings {
        var findings = ReachFindings()
        for exchange in exchanges {
            switch exchange.request {
            case .post(let id) where !exchange.answer.found && !exchange.answer.inconclusive:
                findings.gone.insert(id)
            case .below(let post, _) where post == goal.postId:
                findings.survivorBelow = findings.survivorBelow ?? exchange.answer.posts.first?.id
            case .above(let post, _) where post == goal.postId:
                findings.survivorAbove = findings.survivorAbove ?? exchange.answer.posts.last?.id
            default:
                break
            }
        }
        // Learned from pages: the page below the post above it does not begin with it.
        if goal.isGone(by: exchanges) {
            findings.gone.insert(goal.postId)
            if findings.survivorBelow == nil { findings.survivorBelow = goal.pageAfterPostAbove(in: exchanges)?.first?.id }
        }
        // Learned from pages asked by time that cover the post's time.
        if findings.gone.contains(goal.postId), findings.survivorBelow == nil, findings.survivorAbove == nil {
            (findings.survivorBelow, findings.survivorAbove) = goal.timeKeyedSurvivors(in: exchanges)
        }
        if !findings.gone.contains(goal.postId) {
            findings.survivorBelow = nil
            findings.survivorAbove = nil
        }
        return findings
    }
}
