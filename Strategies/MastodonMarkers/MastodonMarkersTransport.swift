import Foundation
import TimelineEngineCore
import TimelineEngineHTTPExchange
import TimelineEngineStrategyKit
import TimelineEngineSyncModel
import TimelineEngineValueTree

/// MastodonMarkers: the reader's position as Mastodon's read marker for the home timeline
/// (`GET`/`POST /api/v1/markers`), so that it follows the reader into the web client and every
/// app that uses markers. Only a post id crosses: a marker holds `last_read_id` alone.
///
/// - **Pull** reads the marker as the head of the pseudo-device `mastodon` in the `Account` /
///   home register: numbered and stamped by its `updated_at` (the server's clock; by its
///   `version` where a server gives no time), with an empty context (the marker saw nothing); its
///   progress is the post's time read from its id where the id holds a plausible one (Mastodon's
///   and Takahē's time-ordered ids). A device's next save has seen it.
/// - The marker carries what the server's clock is to the pulling device: the answer's `Date`
///   bounds it, so the marker's update orders against the device's own writes by true time
///   (`ClockOffsets`), as CausalFurthest orders any two devices' writes. A move back on one device
///   (pushed as below) is then later than the other device's position further along, and wins
///   there too: the devices agree.
/// - What a marker cannot carry, the transport cannot keep: the place within the post, the
///   visit (so a glance pushed to it counts as reading), and which device moved it.
/// - **Push** moves the marker to the register's winner, but only forward (to a later id), or
///   backwards when the winner is an explicit move back (a reset) written after the marker was
///   last updated: a stale client never drags the marker back (mastodon#22721, IceCubesApp#1398).
/// - Mastodon answers 409 when the marker changed during the update: the transport reads it
///   again, decides again, and retries, at most `MaxConflicts` times. Mastodon's update does not
///   take the version the client read, so an update that lands between a client's read and its
///   write is no conflict there and may leave the marker at the nearer post; the next round of
///   the device that is further along moves it forward again.
/// - The token comes from the environment variable `TokenVariable`, as for the Mastodon
///   timeline source. A server that cannot be reached is offline; a refused token is an error.
/// - Mastodon has no push for markers: changes are polled every `PollInterval` seconds (at
///   least 2, so that polling stays far inside Mastodon's 300 requests per 5 minutes), and a
///   poll waits for the rate limit's reset when `X-RateLimit-Remaining` runs low.
public struct MastodonMarkersTransport: SyncTransport, DeclaredStrategy {
    public static let urlParameter = Parameter<String>(required: "URL", help: "The Mastodon instance, e.g. https://mastodon.social.")
    public static let tokenVariableParameter = Parameter<String>(
        "TokenVariable", help: "The environment variable that holds the access token (read:statuses and write:statuses).",
        default: "ENGINE_ACCESS_TOKEN")
    public static let accountParameter = Parameter<String>(
        "Account", help: "The account whose home-timeline register the marker carries.", default: "default")
    public static let timeoutParameter = Parameter<Double>("Timeout", help: "Seconds one request may take.", default: 15, range: 0.001...3600)
    public static let pollIntervalParameter = Parameter<Double>(
        "PollInterval", help: "Seconds between two polls of the marker (Mastodon has no push for markers).", default: 60, range: 2...86400)
    public static let maxConflictsParameter = Parameter<Int>(
        "MaxConflicts", help: "How many times an update that met a concurrent one (HTTP 409) is decided again and retried.",
        default: 3, range: 0...20)

    public static let type = StrategyType(
        name: "MastodonMarkers", kind: .transport,
        summary: "Mastodon's home-timeline read marker (/api/v1/markers): moved only forward, or back on purpose; 409s re-read and retried.",
        parameters: [
            urlParameter.declaration, tokenVariableParameter.declaration, accountParameter.declaration, timeoutParameter.declaration,
            pollIntervalParameter.declaration, maxConflictsParameter.declaration,
        ],
        examples: [
            TransportScenario(
                name: "the marker moves forward, and another device reads it as the head of mastodon",
                saves: [.init("phone", "109000000000000010"), .init("laptop", "109000000000000020"), .init("phone", "109000000000000030")],
                reader: "tablet", expected: [device: "109000000000000030"]),
            TransportScenario(
                name: "a device behind the marker does not move it back",
                saves: [.init("phone", "109000000000000030"), .init("laptop", "109000000000000020")],
                reader: "tablet", expected: [device: "109000000000000030"]),
        ]
    ) { options in
        guard let url = URL(string: options(urlParameter)), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
            throw StrategyError("URL must be an http or https URL with a host, found \(options(urlParameter))")
        }
        return .transport(
            MastodonMarkersTransport(
                base: url, tokenVariable: options(tokenVariableParameter), account: options(accountParameter),
                timeout: options(timeoutParameter), pollInterval: options(pollIntervalParameter),
                maxConflicts: options(maxConflictsParameter)))
    }

    /// The device id pulled writes carry.
    public static let device = "mastodon"
    /// The register timeline the marker is: Mastodon's home timeline.
    public static let timeline = "home"

    public let base: URL
    public let tokenVariable: String
    public let account: String
    public let timeout: Double
    public let pollInterval: Double?
    public let maxConflicts: Int
    let environment: @Sendable () -> [String: String]
    let client: (any HTTPExchange)?
    /// The device's clock, read when a request is sent.
    let now: @Sendable () -> Date
    /// What Mastodon last said of its rate limit, shared by every copy of this transport.
    let limits = RateLimitWindow()

    var exchange: any HTTPExchange { client ?? HTTPExchanges.shared }
    var key: RegisterKey { RegisterKey(account: account, timeline: Self.timeline) }
    var endpoint: URL { base.appendingPathComponent("api/v1/markers") }

    public init(
        base: URL, tokenVariable: String = tokenVariableParameter.defaultValue, account: String = accountParameter.defaultValue,
        timeout: Double = timeoutParameter.defaultValue, pollInterval: Double? = pollIntervalParameter.defaultValue,
        maxConflicts: Int = maxConflictsParameter.defaultValue,
        environment: @escaping @Sendable () -> [String: String] = { ProcessInfo.processInfo.environment },
        exchange: (any HTTPExchange)? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.now = now
        self.base = base
        self.tokenVariable = tokenVariable
        self.account = account
        self.timeout = timeout
        self.pollInterval = pollInterval
        self.maxConflicts = maxConflicts
        self.environment = environment
        client = exchange
    }

    /// The home marker: its post id, version and update time; nil when the account has none.
    public struct Marker: Sendable, Equatable {
        public var lastReadId: String
        public var version: Int
        public var updatedAt: Date?
        /// A lower bound, in milliseconds, of how far the reading device's clock was ahead of the
        /// server's (negative: behind), from the answer's `Date`: the server answered after the
        /// request was sent, at most a second after the time `Date` gives.
        public var deviceAhead: Int64?

        public init(lastReadId: String, version: Int, updatedAt: Date?, deviceAhead: Int64? = nil) {
            self.lastReadId = lastReadId
            self.version = version
            self.updatedAt = updatedAt
            self.deviceAhead = deviceAhead
        }
    }

    public var limitations: String? {
        "MastodonMarkers carries a post id alone: not the place within the post (the reader lands at its top), not the visit (a glance counts as reading), not which device moved it, not the posts read (the other devices count them as new); an explicit move back holds only once pushed; and it cannot be sealed end to end, since Mastodon's server must read the post id"
    }

    public func pull(device: String) async throws(SyncTransportError) -> SyncPull {
        guard let marker = try await read() else { return SyncPull() }
        return SyncPull(records: [record(of: marker, pulledBy: device)], devices: [Self.device])
    }

    /// Moves the marker to the register's value, as the publication's policy resolves it.
    public func push(_ publication: SyncPublication) async throws(SyncTransportError) {
        guard let target = publication.policy.value(of: publication.state[key]), let post = target.snapshot?.postId else { return }
        for _ in 0...maxConflicts {
            let marker = try await read()
            guard Self.shouldMove(marker, to: post, by: target) else { return }
            if try await write(post) { return }
        }
        throw SyncTransportError(
            .failed, "\(endpoint.absoluteString): the marker kept changing during the update (HTTP 409 \(maxConflicts + 1) times)")
    }

    /// Polls the marker every `PollInterval` seconds; when Mastodon says few requests remain,
    /// the next poll waits for the limit's reset.
    public func changes(_ watch: ChangeWatch) -> AsyncStream<SyncPull> {
        let limits = self.limits
        let now = self.now
        let interval = pollInterval ?? Self.pollIntervalParameter.defaultValue
        var paced = watch
        paced.sleep = { seconds in try await watch.sleep(max(seconds, limits.wait(now: now()))) }
        return ChangeWatch.polling(every: interval, paced) { () async throws(SyncTransportError) -> SyncPull in try await pull(device: watch.device) }
    }

    /// Whether the marker moves to `post`: forward always; backwards only for an explicit move
    /// back written after the marker's last update.
    static func shouldMove(_ marker: Marker?, to post: String, by target: PositionRecord) -> Bool {
        guard let marker else { return true }
        if marker.lastReadId == post { return false }
        if idPrecedes(marker.lastReadId, post) { return true }
        return target.isReset && Double(target.stamp.time.milliseconds) / 1000 > (marker.updatedAt?.timeIntervalSince1970 ?? 0)
    }

    /// Mastodon's ids as they order: numeric ids by value, others by their text.
    static func idPrecedes(_ a: String, _ b: String) -> Bool {
        let numeric = !a.isEmpty && !b.isEmpty && a.allSatisfy(\.isASCIIDigitCharacter) && b.allSatisfy(\.isASCIIDigitCharacter)
        if numeric, a.count != b.count { return a.count < b.count }
        return a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
    }

    /// The marker as a register write, pulled by `device`.
    func record(of marker: Marker, pulledBy device: String) -> PositionRecord {
        let seconds = marker.updatedAt?.timeIntervalSince1970 ?? 0
        let milliseconds = seconds.isFinite ? UInt64(max(0, min(seconds * 1000, Double(HybridTimestamp.maximumMilliseconds)))) : 0
        let stamp = RegisterStamp(time: HybridTimestamp(milliseconds: milliseconds, counter: 0), device: Self.device)
        // A later marker has a later time or a greater version (a server may move only one of
        // them): their sum numbers it, so that no update looks already seen.
        let sequence = milliseconds &+ UInt64(max(0, marker.version)) &+ 1
        let progress = Self.postTime(fromId: marker.lastReadId, notAfter: now().addingTimeInterval(86_400))
            .map { PositionRecord.Progress(createdAt: $0.timeIntervalSince1970, postId: marker.lastReadId) }
        var clocks = ClockOffsets()
        if let ahead = marker.deviceAhead { clocks[device] = ahead }
        return PositionRecord(
            key: key, stamp: stamp, sequence: sequence, savedAt: marker.updatedAt ?? Date(timeIntervalSince1970: 0),
            snapshot: PositionSnapshot(postId: marker.lastReadId), epoch: .zero, progress: progress, clocks: clocks)
    }

    /// Takahē's id epoch, in seconds since 1970: 2022-01-01 07:00 UTC.
    static let takaheEpoch: Double = 1_641_020_400

    /// Mastodon's first release: no post of a Mastodon-API server is older.
    static let earliestPost = Date(timeIntervalSince1970: 1_458_086_400)

    /// The time a post id holds, where it holds one that is plausible (from Mastodon's first
    /// release to `notAfter`): Mastodon's snowflake ids carry milliseconds since 1970 above their
    /// low 16 bits; Takahē's carry milliseconds since its epoch, 1641020400 (2022-01-01 at
    /// midnight in California, 07:00 UTC; `core/snowflake.py`), above their low 22. Nil for any
    /// other id: it is then ordered by the marker's time alone.
    static func postTime(fromId id: String, notAfter latest: Date) -> Date? {
        guard let value = UInt64(id) else { return nil }
        let layouts: [(shift: UInt64, epoch: Double)] = [(16, 0), (22, takaheEpoch)]
        for layout in layouts where value >> layout.shift > 0 {
            let date = Date(timeIntervalSince1970: layout.epoch + Double(value >> layout.shift) / 1000)
            if date >= earliestPost, date <= latest { return date }
        }
        return nil
    }

    // MARK: The API

    func read() async throws(SyncTransportError) -> Marker? {
        var query = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)!
        query.queryItems = [URLQueryItem(name: "timeline[]", value: Self.timeline)]
        let sent = now()
        let answer = try await send(method: "GET", url: query.url!, body: nil)
        guard answer.status == 200 else { throw failure(answer) }
        guard let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any] else {
            throw SyncTransportError(.failed, "\(endpoint.absoluteString): the answer is not a JSON object of markers")
        }
        guard let home = object[Self.timeline] as? [String: Any] else { return nil }
        guard let id = home["last_read_id"] as? String, !id.isEmpty else {
            throw SyncTransportError(.failed, "\(endpoint.absoluteString): the home marker has no last_read_id string")
        }
        let version = (home["version"] as? Int) ?? (home["version"] as? NSNumber)?.intValue ?? 0
        let updated = (home["updated_at"] as? String).flatMap(Self.parseDate)
        let ahead = answer.header("Date").flatMap(HTTPDate.parse).map { date in
            Int64((sent.timeIntervalSince1970 - date.timeIntervalSince1970) * 1000) - 1_000
        }
        return Marker(lastReadId: id, version: version, updatedAt: updated, deviceAhead: ahead)
    }

    /// Posts the marker; false on a conflict (409), to decide again. An answer that does not
    /// show the home marker at `post` stored nothing, and is an error.
    func write(_ post: String) async throws(SyncTransportError) -> Bool {
        let body = (try? JSONSerialization.data(withJSONObject: [Self.timeline: ["last_read_id": post]])) ?? Data()
        let answer = try await send(method: "POST", url: endpoint, body: body)
        if answer.status == 409 { return false }
        guard (200...299).contains(answer.status) else { throw failure(answer) }
        let object = try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        let stored = (object?[Self.timeline] as? [String: Any])?["last_read_id"] as? String
        guard stored == post else {
            let shown = String(decoding: answer.body.prefix(200), as: UTF8.self)
            throw SyncTransportError(
                .failed,
                "\(endpoint.absoluteString): HTTP \(answer.status) but the answer does not show the home marker at \(post), so nothing was stored (answer: \(TerminalText.escaped(shown)))"
            )
        }
        return true
    }

    func send(method: String, url: URL, body: Data?) async throws(SyncTransportError) -> HTTPExchangeAnswer {
        guard let token = environment()[tokenVariable], !token.isEmpty else {
            throw SyncTransportError(.failed, "no Mastodon access token: set the environment variable \(tokenVariable)")
        }
        var headers: [(name: String, value: String)] = [("Authorization", "Bearer \(token)"), ("Accept", "application/json")]
        if body != nil { headers.append(("Content-Type", "application/json")) }
        let request = HTTPExchangeRequest(
            method: method, url: url, headers: headers, body: body, timeout: timeout, maxBodyBytes: 1 << 20,
            followsOtherOrigins: false)
        do {
            let answer = try await exchange.send(request)
            limits.note(answer, now: now())
            return answer
        } catch {
            throw error.isUnreachable
                ? SyncTransportError(.unreachable, "\(endpoint.absoluteString): cannot be reached: \(error.message)")
                : SyncTransportError(.failed, "\(endpoint.absoluteString): \(error.message)")
        }
    }

    func failure(_ answer: HTTPExchangeAnswer) -> SyncTransportError {
        let message = ((try? JSONSerialization.jsonObject(with: answer.body) as? [String: Any])?["error"] as? String).map { TerminalText.escaped($0) }
        return SyncTransportError(.failed, "\(endpoint.absoluteString): HTTP \(answer.status)\(message.map { ": \($0)" } ?? "")")
    }

    static func parseDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}

extension Character {
    var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
