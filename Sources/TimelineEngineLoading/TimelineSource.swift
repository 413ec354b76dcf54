import Foundation
import TimelineEngineCore
import TimelineEngineFormats

/// Where a timeline is refreshed from: a file, or a Mastodon or Bluesky server.
public enum TimelineSource: Sendable, Equatable, CustomStringConvertible {
    /// A file in any `TimelineFormat` (detected when `format` is nil). A file is the whole
    /// timeline, so the source is authoritative for every post.
    case file(path: String, format: TimelineFormat?)
    /// A Mastodon `GET /api/v1/timelines/home` (or another endpoint answering an array of
    /// Status), with the access token read from the environment variable `tokenVariable`.
    case mastodon(URL, tokenVariable: String)
    /// A Bluesky `app.bsky.feed.getTimeline` XRPC endpoint, with the access JWT read from the
    /// environment variable `tokenVariable`.
    case bluesky(URL, tokenVariable: String)

    /// The environment variable a token is read from when none is named.
    public static let defaultTokenVariable = "ENGINE_ACCESS_TOKEN"

    /// The API shapes an HTTP source can have.
    public enum API: String, CaseIterable, Sendable {
        case mastodon, bluesky
    }

    /// A source from the command line: a path, or an `http(s)://` URL whose API is `api`, or
    /// detected from the path (`/api/v1/timelines/…` is Mastodon, `/xrpc/app.bsky.feed.…` is
    /// Bluesky).
    public static func parse(_ text: String, api: API? = nil, tokenVariable: String = defaultTokenVariable) throws(SourceError) -> TimelineSource {
        let lowered = text.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            if api != nil { throw SourceError(source: text, "--api applies to http(s) URLs only") }
            if lowered.hasPrefix("file://") {
                guard let url = URL(string: text), url.isFileURL else { throw SourceError(source: text, "is not a valid URL") }
                return .file(path: url.path, format: nil)
            }
            if text.contains("://"), URL(string: text)?.scheme != nil {
                throw SourceError(source: text, "only http, https and file URLs are sources")
            }
            return .file(path: text, format: nil)
        }
        guard let url = URL(string: text), url.host != nil else { throw SourceError(source: text, "is not a valid URL") }
        switch api ?? detect(url) {
        case .mastodon: return .mastodon(url, tokenVariable: tokenVariable)
        case .bluesky: return .bluesky(url, tokenVariable: tokenVariable)
        case nil:
            throw SourceError(
                source: text,
                """
                cannot tell the API from the URL; give --api mastodon or --api bluesky \
                (Mastodon: /api/v1/timelines/home, Bluesky: /xrpc/app.bsky.feed.getTimeline)
                """)
        }
    }

    static func detect(_ url: URL) -> API? {
        let path = url.path
        if path.contains("/api/v1/timelines/") { return .mastodon }
        if path.contains("/xrpc/app.bsky.feed.") { return .bluesky }
        return nil
    }

    /// Which posts the source speaks for when it answers.
    var coverage: TimelineMerge.Coverage {
        switch self {
        case .file: return .complete
        case .mastodon, .bluesky:
            // A page asked for with max_id, min_id or a cursor is a window into the middle of the
            // timeline; the first page (since_id too: its answer begins at the newest post)
            // speaks for everything above the posts it shares with the cache.
            let names = Set(queryItems.map(\.name))
            return names.isDisjoint(with: ["max_id", "cursor", "min_id"]) ? .head : .window
        }
    }

    /// The posts the answer is next to, from the request: `max_id` is the post just above the
    /// page, `min_id` the post just below it, and `since_id` the post just below a page that did
    /// not fill up (`limit`, Mastodon's default 20), since nothing newer was left out between them.
    func anchors(answerCount: Int) -> TimelineMerge.Anchors {
        guard case .mastodon = self else { return TimelineMerge.Anchors() }
        func value(_ name: String) -> String? { queryItems.last { $0.name == name }?.value.flatMap { $0.isEmpty ? nil : $0 } }
        var anchors = TimelineMerge.Anchors(above: value("max_id"), below: value("min_id"))
        if anchors.below == nil, let since = value("since_id"), answerCount < (value("limit").flatMap(Int.init) ?? 20) {
            anchors.below = since
        }
        return anchors
    }

    private var queryItems: [URLQueryItem] {
        switch self {
        case .file: []
        case .mastodon(let url, _), .bluesky(let url, _): URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        }
    }

    public var description: String {
        switch self {
        case .file(let path, _): path
        case .mastodon(let url, _), .bluesky(let url, _): url.absoluteString
        }
    }
}
