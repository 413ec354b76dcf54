import Foundation
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineHTTPExchange
import TimelineEngineReachModel
import TimelineEngineSupport

/// A Mastodon or Bluesky timeline answering a reach strategy's requests over HTTP:
///
/// | request | Mastodon | Bluesky |
/// |---|---|---|
/// | `.top(cursor)` | the timeline URL with `max_id=cursor` | the timeline URL with `cursor=cursor` |
/// | `.keyed(cursor)` | — (answered with no posts) | as `.top`; a 400 (a cursor the server does not take) is an empty answer, which the strategy sets aside |
/// | `.below(post)` | `max_id=post` | — (answered with no posts) |
/// | `.above(post)` | `min_id=post` | — |
/// | `.post(id)` | `GET /api/v1/statuses/:id` (a JSON 404: gone; any other 404: inconclusive) | `app.bsky.feed.getPosts?uris=` (absent: gone) |
///
/// Each request is retried as the network policy says (a `Retry-After` is a floor under the
/// wait). When an answer says the rate limit is spent (`X-RateLimit-Remaining: 0`,
/// `RateLimit-Remaining: 0`), no further request is sent before its reset: the request fails
/// at once, and the reach stops.
public final class HTTPPageSource: Sendable {
    public let api: TimelineSource.API
    /// The timeline endpoint the source was given.
    public let timelineURL: URL
    public let token: String?
    public let fetcher: SourceFetcher
    /// When the server's rate limit resets, while it is spent.
    private let spentUntil = Locked<Date?>(nil)
    private let now: @Sendable () -> Date

    /// The source for `source`, or nil for a file (which holds the whole timeline).
    /// `rateLimitSpentUntil` carries what the refresh's answer said of the rate limit.
    public init?(_ source: TimelineSource, fetcher: SourceFetcher, rateLimitSpentUntil: Date? = nil, now: @escaping @Sendable () -> Date = Date.init)
    {
        switch source {
        case .file: return nil
        case .mastodon(let url, let variable):
            (api, timelineURL, token) = (.mastodon, url, fetcher.environment[variable])
        case .bluesky(let url, let variable):
            (api, timelineURL, token) = (.bluesky, url, fetcher.environment[variable])
        }
        self.fetcher = fetcher
        self.now = now
        spentUntil.withLock { $0 = rateLimitSpentUntil }
    }

    /// True for Mastodon, which pages by post id.
    public var pagesByPost: Bool { api == .mastodon }

    /// The largest page the API gives: 40 on Mastodon, 100 on Bluesky.
    public var maxPageSize: Int { api == .mastodon ? 40 : 100 }

    /// What answering `request` made: the answer or why there is none, and every attempt.
    public struct Result: Sendable {
        public var answer: Swift.Result<PageAnswer, SourceError>
        public var attempts: [SourceFetcher.Attempt]
        public var url: URL
    }

    /// Asks the server, unless its rate limit is spent, reporting each attempt to `progress`.
    public func answer(_ request: PageRequest, progress: @Sendable (SourceFetcher.Progress) -> Void = { _ in }) async -> Result {
        let url = url(for: request)
        if let reset = spentUntil.withLock({ $0 }), reset > now() {
            let wait = reset.timeIntervalSince(now())
            let error = SourceError(
                source: url.absoluteString, "the server's rate limit is spent until \(Timestamp.format(reset)); not asked",
                failure: .http(status: 429, retryAfter: wait))
            return Result(answer: .failure(error), attempts: [], url: url)
        }
        guard isAsked(request) else {
            return Result(answer: .success(PageAnswer(posts: [])), attempts: [], url: url)
        }
        let (api, token, spent, exchange) = (api, token, spentUntil, fetcher.exchange)
        if case .post(let id) = request {
            let (result, attempts) = await fetcher.attempting(url, progress: progress) { timeout in
                let result = await HTTPTimelineClient(timeout: timeout, exchange: exchange).lookUp(url, api: api, token: token)
                if case .success(let found) = result, let reset = RetryAfter.spentUntil(from: found.answer) { spent.withLock { $0 = reset } }
                return result.map { found in
                    // Gone only when the server says so: Mastodon's JSON 404, or Bluesky's answer
                    // without the post. Any other 404 (HTML: Takahē's for a boost's id, a proxy's)
                    // says neither.
                    let said = found.post != nil || found.answer.status != 404 || Self.isNotFoundJSON(found.answer.body)
                    return PageAnswer(
                        posts: found.post.map { [Self.matching($0, id: id)] } ?? [], found: found.post != nil || !said,
                        inconclusive: !said, bytes: found.answer.body.count)
                }
            }
            return Result(answer: result, attempts: attempts, url: url)
        }
        let (result, attempts) = await fetcher.attempting(url, progress: progress) { timeout in
            let result = await HTTPTimelineClient(timeout: timeout, exchange: exchange).fetchPage(url, api: api, token: token)
            if case .success(let page) = result, let reset = RetryAfter.spentUntil(from: page.answer) { spent.withLock { $0 = reset } }
            return result.map { PageAnswer(posts: $0.posts, cursor: $0.posts.isEmpty ? nil : $0.cursor, bytes: $0.answer.body.count) }
        }
        // A cursor the client made and the server refused (`InvalidRequest: Malformed cursor`):
        // no page, and the strategy pages from the top.
        if request.isKeyed, case .failure(let error) = result, case .http(status: 400, _)? = error.failure {
            return Result(answer: .success(PageAnswer(posts: [])), attempts: attempts, url: url)
        }
        return Result(answer: result, attempts: attempts, url: url)
    }

    /// A 404's body as Mastodon answers for a status it does not have: a JSON object with `error`.
    static func isNotFoundJSON(_ body: Data) -> Bool {
        (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["error"] is String
    }

    /// True for a request the API can answer: Mastodon pages by post id and its cursors are post
    /// ids; Bluesky pages only from the top, by cursor.
    private func isAsked(_ request: PageRequest) -> Bool {
        switch request {
        case .top, .post: true
        case .below, .above: api == .mastodon
        case .keyed: api == .bluesky
        }
    }

    /// A looked-up post under the id the timeline gives it (a Bluesky repost's entry is the
    /// post's URI with `#repost-by:`; the lookup answers the post's own URI).
    static func matching(_ post: Post, id: String) -> Post {
        var post = post
        post.id = id
        return post
    }

    /// The URL that asks `request`.
    public func url(for request: PageRequest) -> URL {
        var components = URLComponents(url: timelineURL, resolvingAgainstBaseURL: false) ?? URLComponents()
        var items = (components.queryItems ?? []).filter { !["max_id", "min_id", "since_id", "cursor", "limit"].contains($0.name) }
        switch request {
        case .top(let cursor, let limit), .keyed(let cursor, let limit):
            items += [URLQueryItem(name: api == .mastodon ? "max_id" : "cursor", value: cursor), URLQueryItem(name: "limit", value: "\(limit)")]
        case .below(let post, let limit):
            items += [URLQueryItem(name: "max_id", value: post), URLQueryItem(name: "limit", value: "\(limit)")]
        case .above(let post, let limit):
            items += [URLQueryItem(name: "min_id", value: post), URLQueryItem(name: "limit", value: "\(limit)")]
        case .post(let id):
            let path = components.percentEncodedPath
            switch api {
            case .mastodon:
                let prefix = path.range(of: "/api/v1/").map { String(path[..<$0.lowerBound]) } ?? ""
                let encoded = id.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? id
                components.percentEncodedPath = prefix + "/api/v1/statuses/" + encoded
                items = []
            case .bluesky:
                let prefix = path.range(of: "/xrpc/").map { String(path[..<$0.lowerBound]) } ?? ""
                components.percentEncodedPath = prefix + "/xrpc/app.bsky.feed.getPosts"
                let uri = id.range(of: "#repost-by:").map { String(id[..<$0.lowerBound]) } ?? id
                items = [URLQueryItem(name: "uris", value: uri)]
            }
        }
        components.queryItems = items.isEmpty ? nil : items
        return components.url ?? timelineURL
    }
}
