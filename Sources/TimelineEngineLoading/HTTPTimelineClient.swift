import Foundation
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineHTTPExchange
import TimelineEngineReachModel
import TimelineEngineSyncModel
import TimelineEngineValueTree

/// One request to a Mastodon or Bluesky timeline endpoint, through the process's HTTP client
/// (`HTTPExchanges`), bounded by a timeout from sending the request to the last byte of the
/// answer.
public struct HTTPTimelineClient: Sendable {
    /// Seconds one request may take in all.
    public let timeout: Double
    /// The largest answer body read, in bytes; a larger answer is cut off as it arrives.
    public let maxBodyBytes: Int
    /// The HTTP client.
    public let exchange: any HTTPExchange

    /// 32 MiB: a page of 40 Mastodon statuses is about 100 KB.
    public static let defaultMaxBodyBytes = 32 << 20

    public init(timeout: Double, maxBodyBytes: Int = defaultMaxBodyBytes, exchange: any HTTPExchange = HTTPExchanges.shared) {
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
        self.exchange = exchange
    }

    /// One attempt that went wrong: the failure as the network policy sees it, and a sentence
    /// for the reader.
    public struct AttemptError: Error, Sendable, Equatable {
        public var failure: FetchFailure
        public var message: String
    }

    /// Requests `url` once and reads the answer as `api`'s timeline shape.
    public func fetch(_ url: URL, api: TimelineSource.API, token: String?) async -> Result<[Post], AttemptError> {
        await fetchPage(url, api: api, token: token).map(\.posts)
    }

    /// A page of a timeline: its posts, where the next page continues (Mastodon: the last post's
    /// id; Bluesky: the answer's `cursor`), and the answer itself, for its headers and size.
    public struct Page: Sendable {
        public var posts: [Post]
        public var cursor: String?
        public var answer: HTTPExchangeAnswer
    }

    /// Requests `url` once and reads the answer as a page of `api`'s timeline.
    public func fetchPage(_ url: URL, api: TimelineSource.API, token: String?) async -> Result<Page, AttemptError> {
        let shape = api == .mastodon ? "a Mastodon timeline (an array of Status)" : "a Bluesky timeline (app.bsky.feed.getTimeline)"
        switch await getJSON(url, token: token, shape: shape) {
        case .failure(let error):
            return .failure(error)
        case .success(let (root, answer)):
            do throws(TimelineFormatError) {
                guard let root else { throw TimelineFormatError("no body", at: nil) }
                switch api {
                case .mastodon:
                    let posts = try MastodonTimeline.posts(from: root)
                    return .success(Page(posts: posts, cursor: posts.last?.id, answer: answer))
                case .bluesky:
                    return .success(Page(posts: try BlueskyTimeline.posts(from: root), cursor: BlueskyTimeline.cursor(from: root), answer: answer))
                }
            } catch {
                return .failure(
                    AttemptError(failure: .invalidContent("not \(shape)"), message: "the answer is not \(shape): body \(error.description)"))
            }
        }
    }

    /// Looks one post up by id (Mastodon `statuses/:id`, Bluesky `getPosts`): the post, or nil
    /// when the server says it does not exist (a 404, or absent from `getPosts`).
    public func lookUp(_ url: URL, api: TimelineSource.API, token: String?) async -> Result<(post: Post?, answer: HTTPExchangeAnswer), AttemptError> {
        let shape = api == .mastodon ? "a Mastodon Status" : "a Bluesky getPosts answer"
        switch await getJSON(url, token: token, shape: shape, notFound: true) {
        case .failure(let error):
            return .failure(error)
        case .success(let (root, answer)):
            guard let root else { return .success((nil, answer)) }
            do throws(TimelineFormatError) {
                let post = api == .mastodon ? try MastodonTimeline.post(from: root) : try BlueskyTimeline.lookedUp(from: root).first
                return .success((post, answer))
            } catch {
                return .failure(
                    AttemptError(failure: .invalidContent("not \(shape)"), message: "the answer is not \(shape): body \(error.description)"))
            }
        }
    }

    /// Requests `url` once: the answer's JSON and the answer, or why there is none. With
    /// `notFound`, a 404 is an answer with no JSON (nil).
    func getJSON(_ url: URL, token: String?, shape: String, notFound: Bool = false) async -> Result<(Value?, HTTPExchangeAnswer), AttemptError> {
        var headers: [(name: String, value: String)] = [("Accept", "application/json"), ("User-Agent", "TimelineEngine/\(TimelineLoading.version)")]
        if let token, !token.isEmpty { headers.append(("Authorization", "Bearer \(token)")) }
        let http: HTTPExchangeAnswer
        do {
            http = try await exchange.send(HTTPExchangeRequest(url: url, headers: headers, timeout: timeout, maxBodyBytes: maxBodyBytes))
        } catch {
            return .failure(attemptError(error))
        }
        if notFound, http.status == 404 { return .success((nil, http)) }
        let body = http.body
        guard (200...299).contains(http.status) else {
            let wait = RetryAfter.seconds(from: http)
            let failure = FetchFailure.http(status: http.status, retryAfter: wait)
            var message = "HTTP \(http.status)"
            if let reason = Self.serverMessage(body) { message += ": \(TerminalText.escaped(reason))" }
            if let wait { message += " (the server asks to wait \(RetryAfter.describe(wait)))" }
            if http.status == 401, token == nil { message += "; no access token was sent" }
            return .failure(AttemptError(failure: failure, message: message))
        }
        let contentType = http.header("Content-Type") ?? ""
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard mediaType == "application/json" || mediaType.hasSuffix("+json") else {
            let shown = contentType.isEmpty ? "no Content-Type" : "Content-Type \(TerminalText.escaped(contentType))"
            return .failure(
                AttemptError(
                    failure: .invalidContent("wrong content type"),
                    message: "expected application/json, got \(shown)"))
        }
        if body.starts(with: [0x1F, 0x8B]) {
            // gzip's magic: a server or a proxy compressed the answer, and it reached the parser so.
            let encoding = http.header("Content-Encoding")
            let message =
                encoding.map {
                    "the answer is compressed (Content-Encoding: \(TerminalText.escaped($0))), which this client did not ask for and does not decompress"
                }
                ?? "the answer is gzip-compressed, though no Content-Encoding says so"
            return .failure(AttemptError(failure: .invalidContent("compressed"), message: message))
        }
        do {
            return .success((try TimelineFormat.json(body), http))
        } catch {
            return .failure(AttemptError(failure: .invalidContent("not \(shape)"), message: "the answer is not \(shape): body \(error.description)"))
        }
    }

    /// An exchange that brought no answer, as the network policy sees it.
    func attemptError(_ error: HTTPExchangeError) -> AttemptError {
        switch error.kind {
        case .timedOut:
            return AttemptError(failure: .timeout, message: "no complete answer within \(RetryAfter.describe(timeout))")
        case .tooLarge(let limit):
            return AttemptError(failure: .invalidContent("answer too large"), message: "the answer is larger than \(limit) bytes; it was not read")
        case .connectionLost:
            return AttemptError(failure: .truncated, message: error.message)
        case .refused:
            return AttemptError(failure: .connection("refused"), message: error.message)
        case .unknownHost:
            return AttemptError(failure: .connection("unknown host"), message: error.message)
        case .offline:
            return AttemptError(failure: .connection("offline"), message: error.message)
        case .unavailable, .other, .crossOriginRedirect:
            return AttemptError(failure: .connection(error.message), message: error.message)
        case .tooManyRedirects:
            // The server answered, in a loop: asking again gives the same answer.
            return AttemptError(failure: .invalidContent("redirect loop"), message: error.message)
        }
    }

    /// The `error` (Mastodon) or `message` (Bluesky) of an error body, when it has one.
    static func serverMessage(_ body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        let text = (object["message"] as? String) ?? (object["error"] as? String)
        return text.map { String($0.prefix(200)) }
    }
}

/// The module's version, sent as the User-Agent.
public enum TimelineLoading {
    public static let version = "0.1.0"
}
