import Foundation
import TimelineEngineCore
import TimelineEngineReachModel
import TimelineEngineSimulatedServer

/// A Mastodon- or Bluesky-shaped timeline server on 127.0.0.1, for the loading tests: it serves
/// a `PagedTimeline` (which answers paging as the real APIs do) as the APIs' JSON.
///
/// - Mastodon: `GET /api/v1/timelines/home` with `limit`, `max_id`, `min_id`;
///   `GET /api/v1/statuses/:id` (404 for a deleted post).
/// - Bluesky: `GET /xrpc/app.bsky.feed.getTimeline` with `limit` and `cursor`;
///   `GET /xrpc/app.bsky.feed.getPosts?uris=` (a deleted post is absent).
///
/// Failures are injected per route: the next answers can be scripted (a 429 with
/// `Retry-After`, a 503), and every answer can say the rate limit is spent.
public final class FakeTimelineServer: @unchecked Sendable {
    // @unchecked: the mutable state is only touched under `lock`.
    public let server: LoopbackHTTPServer
    public let isMastodon: Bool
    private let lock = NSLock()
    private var feed: PagedTimeline
    private var injected: [String: [LoopbackHTTPServer.Answer]] = [:]
    private var rateLimitSpent = false
    /// When set, only this route's answers say the rate limit is spent.
    private var rateLimitSpentRoute: String?
    /// When set, every page has this many posts, whatever `limit` asks for.
    private let pageSize: Int?

    public static let mastodonTimeline = "/api/v1/timelines/home"
    public static let blueskyTimeline = "/xrpc/app.bsky.feed.getTimeline"

    /// A server over `posts` (display order, newest first). With `pageSize`, every page has
    /// that many posts whatever `limit` asks for, as a careless or hostile server answers. A
    /// Bluesky server's cursors are `cursors` (opaque unless asked: positions, as most tests read
    /// them); a cursor it refuses is answered as the AppView does, a 400 `InvalidRequest`.
    public init(mastodon: Bool, posts: [Post], pageSize: Int? = nil, cursors: FeedCursors = .opaque) throws {
        server = try LoopbackHTTPServer()
        isMastodon = mastodon
        feed = PagedTimeline(posts: posts, pagesByPost: mastodon, maxPageSize: pageSize)
        feed.cursors = cursors
        self.pageSize = pageSize
        if mastodon {
            server.handle(Self.mastodonTimeline) { [unowned self] request, _ in answer(request, route: "timeline") }
            server.handle(prefix: "/api/v1/statuses/") { [unowned self] request, _ in answer(request, route: "post") }
        } else {
            server.handle(Self.blueskyTimeline) { [unowned self] request, _ in answer(request, route: "timeline") }
            server.handle("/xrpc/app.bsky.feed.getPosts") { [unowned self] request, _ in answer(request, route: "post") }
        }
    }

    /// The timeline URL a source is given.
    public var timelineURL: URL {
        URL(string: server.baseURL + (isMastodon ? Self.mastodonTimeline : Self.blueskyTimeline) + "?limit=40")!
    }

    /// Changes the feed (new posts, deletions).
    public func change(_ body: (inout PagedTimeline) -> Void) {
        lock.withLock { body(&feed) }
    }

    /// Answers the next requests to `route` ("timeline" or "post") with `answers` first.
    public func inject(_ route: String, _ answers: [LoopbackHTTPServer.Answer]) {
        lock.withLock { injected[route, default: []] += answers }
    }

    /// From now on, every answer (or only those of `route`, "timeline" or "post") says the rate
    /// limit is spent for the next hour.
    public func spendRateLimit(on route: String? = nil) {
        lock.withLock {
            rateLimitSpent = true
            rateLimitSpentRoute = route
        }
    }

    /// The requests so far: method and path with its query.
    public var requests: [String] { server.received.map(\.path) }

    private func answer(_ request: LoopbackHTTPServer.Request, route: String) -> LoopbackHTTPServer.Answer {
        let (injectedAnswer, feed, spent, pageSize) = lock.withLock { () -> (LoopbackHTTPServer.Answer?, PagedTimeline, Bool, Int?) in
            var next: LoopbackHTTPServer.Answer?
            if var queue = injected[route], !queue.isEmpty {
                next = queue.removeFirst()
                injected[route] = queue
            }
            return (next, self.feed, rateLimitSpent && (rateLimitSpentRoute.map { $0 == route } ?? true), self.pageSize)
        }
        if let injectedAnswer { return injectedAnswer }
        let components = URLComponents(string: "http://127.0.0.1" + request.path)
        let query = Dictionary((components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let limit = pageSize ?? Int(query["limit"] ?? "") ?? (isMastodon ? 20 : 50)
        var body: Data
        if route == "post" {
            let id =
                isMastodon
                ? String(request.path.dropFirst("/api/v1/statuses/".count).split(separator: "?").first ?? "")
                : query["uris"] ?? ""
            let found = feed.answer(.post(id.removingPercentEncoding ?? id))
            if isMastodon {
                guard let post = found.posts.first else {
                    return LoopbackHTTPServer.Answer(status: 404, body: Data(#"{"error":"Record not found"}"#.utf8))
                }
                body = Self.json(Self.status(post))
            } else {
                body = Self.json(["posts": found.posts.map(Self.postView)])
            }
        } else {
            let page: PageAnswer
            if isMastodon {
                if let maxId = query["max_id"] {
                    page = feed.answer(.below(post: maxId, limit: limit))
                } else if let minId = query["min_id"] {
                    page = feed.answer(.above(post: minId, limit: limit))
                } else {
                    page = feed.head(limit: limit)
                }
                body = Self.json(page.posts.map(Self.status))
            } else {
                if let cursor = query["cursor"], !feed.accepts(cursor: cursor) {
                    return LoopbackHTTPServer.Answer(
                        status: 400, headers: [("Content-Type", "application/json; charset=utf-8")],
                        body: Data(#"{"error":"InvalidRequest","message":"Malformed cursor"}"#.utf8))
                }
                page = query["cursor"].map { feed.answer(.top(cursor: $0, limit: limit)) } ?? feed.head(limit: limit)
                var object: [String: Any] = ["feed": page.posts.map { ["post": Self.postView($0)] }]
                if let cursor = page.cursor { object["cursor"] = cursor }
                body = Self.json(object)
            }
        }
        var headers = [("Content-Type", "application/json; charset=utf-8")]
        if spent {
            let reset = Date().addingTimeInterval(3600)
            headers +=
                isMastodon
                ? [("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", ISO8601DateFormatter().string(from: reset))]
                : [("RateLimit-Remaining", "0"), ("RateLimit-Reset", "\(Int(reset.timeIntervalSince1970))")]
        }
        return LoopbackHTTPServer.Answer(headers: headers, body: body)
    }

    static func json(_ object: Any) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    static func time(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    static func status(_ post: Post) -> [String: Any] {
        [
            "id": post.id, "created_at": time(post.createdAt), "content": "<p>\(post.text ?? "")</p>", "reblog": NSNull(),
            "account": ["acct": post.author ?? "someone"],
        ]
    }

    static func postView(_ post: Post) -> [String: Any] {
        [
            "uri": post.id, "author": ["handle": post.author ?? "someone"], "indexedAt": time(post.createdAt),
            "record": ["text": post.text ?? "", "createdAt": time(post.createdAt)],
        ]
    }
}
