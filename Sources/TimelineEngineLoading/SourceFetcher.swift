import Foundation
import Logging
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineHTTPExchange
import TimelineEngineLogging
import TimelineEngineReachModel
import TimelineEngineValueTree

/// Fetches a timeline from its source, trying again as the network policy allows.
public struct SourceFetcher: Sendable {
    /// Decides whether and when a failed request is retried.
    public var policy: any NetworkPolicy
    /// Seconds one request may take.
    public var requestTimeout: Double
    /// Where token variables are looked up (the process environment by default).
    public var environment: [String: String]
    /// The uniform draw in [0, 1) for the policy's jitter.
    public var jitter: @Sendable () -> Double
    /// The HTTP client (`HTTPExchanges.shared` by default).
    public var exchange: any HTTPExchange
    /// Seconds a whole fetch may take, retries and the reach for the reader's post included
    /// (`Network.FetchDeadline`); nil bounds only each request.
    public var fetchDeadline: Double?
    /// When the fetch under way must end (`startingDeadline()`); nil before it starts.
    public private(set) var deadline: ContinuousClock.Instant?
    /// Where each request and its answer are logged (the timeline category's logger by default).
    public var logger: Logger

    public init(
        policy: any NetworkPolicy, requestTimeout: Double, environment: [String: String] = ProcessInfo.processInfo.environment,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, exchange: any HTTPExchange = HTTPExchanges.shared,
        fetchDeadline: Double? = nil, logger: Logger = LogCategory.timeline.logger
    ) {
        self.policy = policy
        self.requestTimeout = requestTimeout
        self.environment = environment
        self.jitter = jitter
        self.exchange = exchange
        self.fetchDeadline = fetchDeadline
        self.logger = logger
    }

    /// This fetcher with its deadline running from `now`, for one fetch and the requests that
    /// follow it (a reach); unchanged when it is already running or there is none.
    public func startingDeadline(at now: ContinuousClock.Instant = ContinuousClock.now) -> SourceFetcher {
        guard deadline == nil, let fetchDeadline else { return self }
        var fetcher = self
        fetcher.deadline = now.advanced(by: .nanoseconds(Int64(min(fetchDeadline, 86_400) * 1e9)))
        return fetcher
    }

    /// "the fetch's deadline of 60 s", for messages.
    var deadlineDescription: String { "the fetch's deadline of \(RetryAfter.describe(fetchDeadline ?? 0))" }

    /// One request and how it went. Times are seconds since the fetch started.
    public struct Attempt: Sendable, Equatable {
        public var number: Int
        public var startedAt: Double
        public var duration: Double
        /// Nil when the attempt succeeded.
        public var failure: FetchFailure?
        /// The wait before the next attempt, when the policy asked for one.
        public var retryDelay: Double?
    }

    /// What a fetch reports as it goes, for a progress indicator.
    public enum Progress: Sendable {
        /// Request `number` of at most `of` is being made.
        case attempting(number: Int, of: Int)
        /// Request `number` failed; the next comes after `retryIn` seconds, or none (nil).
        case failed(number: Int, message: String, retryIn: Double?)
        /// The refresh is done; request `request` of the reach for post `post` is next.
        case reaching(post: String, request: Int)
        /// The pages fetched (`posts` posts) are being merged into the cache.
        case merging(posts: Int)
    }

    /// The posts, or why there are none; and every request made.
    public struct Outcome: Sendable {
        public var result: Result<[Post], SourceError>
        /// Every request, in order (none for a file).
        public var attempts: [Attempt]
        /// The viewport height a file gave, if any.
        public var viewportHeight: Double?
        /// Where the next page continues after this one (Mastodon: its last post's id; Bluesky:
        /// the answer's cursor); nil for a file or at the end of the feed.
        public var cursor: String?
        /// The size of the answer's body.
        public var bytes = 0
        /// When the server's rate limit resets, if the answer said it is spent.
        public var rateLimitSpentUntil: Date?

        public init(result: Result<[Post], SourceError>, attempts: [Attempt], viewportHeight: Double? = nil) {
            self.result = result
            self.attempts = attempts
            self.viewportHeight = viewportHeight
        }
    }

    /// Reads a file, or requests an HTTP source until it answers or the policy stops, waiting
    /// between attempts as the policy says. Never throws: a failure is the outcome's result.
    public func fetch(_ source: TimelineSource, progress: @Sendable (Progress) -> Void = { _ in }) async -> Outcome {
        switch source {
        case .file(let path, let format):
            return readFile(path, format: format)
        case .mastodon(let url, let variable), .bluesky(let url, let variable):
            let api: TimelineSource.API = if case .mastodon = source { .mastodon } else { .bluesky }
            return await startingDeadline().fetchHTTP(url, api: api, token: environment[variable], progress: progress)
        }
    }

    func readFile(_ path: String, format: TimelineFormat?) -> Outcome {
        let data: Data
        do {
            data = try FileData.read(URL(fileURLWithPath: path))
        } catch {
            return Outcome(result: .failure(SourceError(source: path, error.description)), attempts: [])
        }
        do {
            let timeline = try TimelineFormat.read(data, format: format)
            return Outcome(result: .success(timeline.posts), attempts: [], viewportHeight: timeline.viewportHeight)
        } catch {
            let place = error.location.map { ":\($0.line)" + ($0.column.map { ":\($0)" } ?? "") } ?? ""
            return Outcome(result: .failure(SourceError(source: path + place, error.message)), attempts: [])
        }
    }

    /// The most posts one page of each API gives: Mastodon's home timeline caps `limit` at 40,
    /// Bluesky's `getTimeline` refuses more than 100.
    public static func maxPageSize(_ api: TimelineSource.API) -> Int { api == .mastodon ? 40 : 100 }

    /// The URL's `limit` (Mastodon's default 20, Bluesky's 50 when it has none).
    static func requestedLimit(_ url: URL, api: TimelineSource.API) -> Int {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return items.last { $0.name == "limit" }?.value.flatMap(Int.init).map { max(1, $0) } ?? (api == .mastodon ? 20 : 50)
    }

    /// `url` with its query item `name` set to `value` (added, or replacing the one there).
    static func setting(_ name: String, to value: String, in url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        var items = (components.queryItems ?? []).filter { $0.name != name }
        items.append(URLQueryItem(name: name, value: value))
        components.queryItems = items
        return components.url ?? url
    }

    /// Requests the newest `limit` posts the URL asks for, a page at a time as the API gives
    /// them (each request's `limit` at most the API's page), continuing below the last page
    /// (Mastodon `max_id`, Bluesky `cursor`) until `limit` posts came, the feed ended or a page
    /// failed; a failure after the first page keeps the posts already fetched.
    func fetchHTTP(_ url: URL, api: TimelineSource.API, token: String?, progress: @Sendable (Progress) -> Void) async -> Outcome {
        let exchange = exchange
        let limit = Self.requestedLimit(url, api: api)
        let pageSize = Self.maxPageSize(api)
        var request = limit > pageSize ? Self.setting("limit", to: String(pageSize), in: url) : url
        var posts: [Post] = []
        var seen = Set<String>()
        var outcome = Outcome(result: .success([]), attempts: [])
        while true {
            let (result, attempts) = await attempting(request, progress: progress) { [request] timeout in
                await HTTPTimelineClient(timeout: timeout, exchange: exchange).fetchPage(request, api: api, token: token)
            }
            outcome.attempts += attempts
            guard case .success(let page) = result else {
                if posts.isEmpty, case .failure(let error) = result { outcome.result = .failure(error) }
                break
            }
            let before = posts.count
            for post in page.posts where seen.insert(post.id).inserted { posts.append(post) }
            outcome.cursor = page.cursor
            outcome.bytes += page.answer.body.count
            outcome.rateLimitSpentUntil = RetryAfter.spentUntil(from: page.answer)
            // A page that brought nothing new (a server answering every cursor with the same
            // page) ends the paging: asking on would bring the same again.
            guard posts.count < limit, posts.count > before, let cursor = page.cursor, outcome.rateLimitSpentUntil == nil else { break }
            request = Self.setting(api == .mastodon ? "max_id" : "cursor", to: cursor, in: request)
            request = Self.setting("limit", to: String(min(pageSize, limit - posts.count)), in: request)
        }
        if case .success = outcome.result { outcome.result = .success(posts) }
        return outcome
    }

    /// Makes one request with `once` (given the seconds it may take: the request timeout, or
    /// less when the fetch's deadline comes first) until it succeeds or the policy stops, waiting
    /// between attempts as the policy says: the result and every attempt. Past the deadline no
    /// request is made, and none is retried when its wait would end after it.
    public func attempting<T: Sendable>(
        _ url: URL, progress: @Sendable (Progress) -> Void = { _ in },
        _ once: (_ timeout: Double) async -> Result<T, HTTPTimelineClient.AttemptError>
    )
        async -> (Result<T, SourceError>, [Attempt])
    {
        let clock = ContinuousClock()
        let start = clock.now
        func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }
        var attempts: [Attempt] = []
        var number = 1
        while true {
            // A fetch cancelled before an attempt starts makes no request: the download's own
            // cancellation handler would run before there is a request to cancel.
            if Task.isCancelled {
                return (
                    .failure(
                        SourceError(
                            source: url.absoluteString, "cancelled before the request was made",
                            failure: .connection("cancelled"))), attempts
                )
            }
            let remaining = deadline.map { seconds($0 - clock.now) }
            if let remaining, remaining <= 0 {
                return (
                    .failure(SourceError(source: url.absoluteString, "\(deadlineDescription) has passed; not asked", failure: .timeout)), attempts
                )
            }
            progress(.attempting(number: number, of: policy.maxAttempts))
            logger.debug(
                "request", metadata: ["url": "\(SourceError.shown(url.absoluteString))", "attempt": "\(number)", "of": "\(policy.maxAttempts)"])
            let began = clock.now
            let cutByDeadline = remaining.map { $0 < requestTimeout } ?? false
            var result = await once(min(requestTimeout, remaining ?? requestTimeout))
            if cutByDeadline, case .failure(var error) = result, error.failure == .timeout {
                error.message = "no complete answer before \(deadlineDescription)"
                result = .failure(error)
            }
            var attempt = Attempt(number: number, startedAt: seconds(began - start), duration: seconds(clock.now - began))
            switch result {
            case .success(let value):
                logger.trace(
                    "answered",
                    metadata: ["url": "\(SourceError.shown(url.absoluteString))", "attempt": "\(number)", "seconds": "\(attempt.duration)"])
                attempts.append(attempt)
                return (.success(value), attempts)
            case .failure(let error):
                attempt.failure = error.failure
                var delay = Task.isCancelled ? nil : policy.retryDelay(after: error.failure, attempt: number, jitter: jitter())
                var message = error.message
                if let wait = delay, let deadline, wait >= seconds(deadline - clock.now) {
                    delay = nil
                    message += " (not retried: \(deadlineDescription) comes first)"
                }
                attempt.retryDelay = delay
                attempts.append(attempt)
                progress(.failed(number: number, message: message, retryIn: delay))
                logger.info(
                    "request failed",
                    metadata: [
                        "url": "\(SourceError.shown(url.absoluteString))", "attempt": "\(number)", "error": "\(message)",
                        "retryIn": "\(delay.map { "\($0)" } ?? "none")", "policy": "\(policy.name)",
                    ])
                guard let delay else {
                    if attempts.count > 1 { message += " (after \(attempts.count) attempts)" }
                    return (.failure(SourceError(source: url.absoluteString, message, failure: error.failure)), attempts)
                }
                try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                number += 1
            }
        }
    }
}
