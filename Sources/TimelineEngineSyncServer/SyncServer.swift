#if SyncServer
import Foundation
import Hummingbird
import TimelineEngineJSONText
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import TimelineEngineSyncWire
import UnixSignals
import TimelineEngineSyncModel
import TimelineEngineValueTree

/// `engine serve`: the sync server of the wire format (`docs/SERVER.md`), on Hummingbird.
///
/// - `GET /v1/registers[?since=CURSOR&wait=SECONDS]` answers the token's user's heads (each
///   device's latest write per register) as a sync document with the user's change counter as
///   `cursor`; with `since`, it first waits until the counter passes `since`, or `wait` seconds
///   (at most `maxWait`), or shutdown, and answers only the heads changed after `since`.
/// - `POST /v1/registers` merges a sync document's heads, each by one conditional upsert in the
///   database that replaces a device's head only with a later write of that device, so a stale
///   write never wins; it answers `{"changed": N, "cursor": C}`. The server needs no merge
///   policy: devices resolve each register's value from its heads when they read them.
/// - `GET /v1/user` answers everything the server keeps of the token's user (`UserExport`);
///   `DELETE /v1/user` erases it (`RegisterStorage.erase`): every head and token, the token used
///   included, leaving a tombstone so that old heads cannot come back.
/// - `GET /health` answers 200 when the database answers, 503 otherwise; `GET /metrics`, the
///   Prometheus text format.
///
/// Every `/v1` request needs `Authorization: Bearer TOKEN` and is scoped to the token's user:
/// no path or body names a user. The token's user is read from the database at most once a
/// second per token (`TokenCache`), so a revoked token stops passing within 1 s. Errors are 4xx
/// or 5xx with `{"error": "message"}`.
public struct SyncServer: Sendable {
    public let storage: any RegisterStorage
    public let settings: ServerSettings
    public let waiters: ChangeWaiters
    public let metrics = ServerMetrics()
    /// Whether writes to the store fail, for `/health`.
    public let writeHealth = WriteHealth()
    /// The users of the tokens found lately.
    public let tokens: TokenCache
    public let logger: Logger
    /// Tells other instances of the changes written here; nil when this process is the only writer.
    let announcer: ChangeAnnouncer?

    public init(storage: any RegisterStorage, settings: ServerSettings, tokens: TokenCache = TokenCache(), logger: Logger) {
        self.storage = storage
        self.settings = settings
        // A storage that other instances write hears of their changes only while it listens.
        waiters = ChangeWaiters(hearsEveryChange: storage.remoteEvents == nil)
        announcer = storage.remoteEvents == nil ? nil : ChangeAnnouncer(logger: logger) { changes in try await storage.announce(changes) }
        self.tokens = tokens
        self.logger = logger
    }

    /// The application, listening as `settings` say; `onListening` gets the bound port (useful
    /// with port 0).
    public func application(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = Router(context: ServerRequestContext.self)
        router.add(middleware: ErrorAndMetricsMiddleware(metrics: metrics, logger: logger))
        router.get("/health") { _, _ in try await health() }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: .init(byteBuffer: ByteBuffer(string: metrics.text)))
        }
        router.get("/v1/registers") { request, _ in try await read(request) }
        router.post("/v1/registers") { request, _ in try await write(request) }
        router.get("/v1/user") { request, _ in try await exportUser(request) }
        router.delete("/v1/user") { request, _ in try await eraseUser(request) }
        return Application(
            router: router,
            server: .http1(configuration: .init(idleTimeout: .nanoseconds(Int64(settings.idleTimeout * 1e9)))),
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "timeline-engine"),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? settings.port) },
            logger: logger)
    }

    /// Runs the server until SIGTERM or SIGINT (or until the task is cancelled), then shuts down
    /// gracefully: long-polls are answered first, then requests in flight finish.
    public func run(onListening: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await serviceGroup(signals: [.sigterm, .sigint], onListening: onListening).run()
    }

    /// The server and its helpers as one service group, shut down gracefully on `signals` or
    /// by `triggerGracefulShutdown()`.
    public func serviceGroup(signals: [UnixSignal], onListening: @escaping @Sendable (Int) async -> Void = { _ in }) -> ServiceGroup {
        // A group shuts its services down in reverse order: the waker first, so that the
        // server's wait for requests in flight does not wait on long-polls, and the announcer
        // last, so that it sends the last requests' changes.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let announcer { services.append(.init(service: announcer)) }
        services.append(.init(service: application(onListening: onListening)))
        if let events = storage.remoteEvents {
            services.append(.init(service: RemoteEventListener(events: events, waiters: waiters, tokens: tokens)))
        }
        if let retention = settings.retention {
            services.append(
                .init(
                    service: RetentionSweeper(storage: storage, retention: retention, interval: settings.retentionSweepInterval, logger: logger),
                    successTerminationBehavior: .ignore))
        }
        services.append(.init(service: ShutdownWaker(waiters: waiters), successTerminationBehavior: .ignore))
        return ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: signals, logger: logger))
    }

    // MARK: Handlers

    func health() async throws -> Response {
        do {
            try await storage.check()
            if let failure = writeHealth.lastFailure {
                return Self.error(.serviceUnavailable, "writes fail: \(failure)")
            }
            return Self.json(.ok, #"{"status":"ok"}"#)
        } catch {
            logger.error("health: the database does not answer", metadata: ["error": "\(error)"])
            return Self.error(.serviceUnavailable, "the database does not answer")
        }
    }

    func read(_ request: Request) async throws -> Response {
        let user = try await authenticate(request)
        let query = request.uri.queryParameters
        var since: Int64?
        if let sinceText = query["since"].map(String.init) {
            guard let value = Int64(sinceText), value >= 0 else {
                throw ServerError(.badRequest, "since must be a non-negative integer, found \(sinceText)")
            }
            since = value
            var seconds = settings.maxWait
            if let waitText = query["wait"].map(String.init) {
                guard let wait = Double(waitText), wait.isFinite, wait >= 0 else {
                    throw ServerError(.badRequest, "wait must be a number of seconds, found \(waitText)")
                }
                seconds = min(wait, settings.maxWait)
            }
            // A long-poll re-armed after its answer finds the cursor it was answered with.
            let (generation, known) = await waiters.snapshot(of: user.id)
            let current: Int64
            if let known {
                current = known
            } else {
                current = try await storage.cursor(user: user)
                await waiters.remember(cursor: current, of: user.id, readAt: generation)
            }
            if current <= value {
                metrics.waiting.increment()
                let change = await waiters.wait(user: user.id, after: generation, seconds: seconds)
                metrics.waiting.decrement()
                // The token may have been revoked while the request waited: it is checked again,
                // so that nothing written after the revocation's second reaches a revoked token.
                _ = try await authenticate(request)
                // Woken by this instance's write of the next counter: what it stored is every
                // head changed after `since`, as a read at that counter would answer.
                if let change, value < .max, change.cursor == value + 1 { return Self.registers(cursor: change.cursor, records: change.records) }
            }
        }
        let generation = await waiters.generation(of: user.id)
        let (cursor, records) = try await storage.read(user: user, since: since)
        await waiters.remember(cursor: cursor, of: user.id, readAt: generation)
        return Self.registers(cursor: cursor, records: records)
    }

    /// A read's answer: the cursor and the records as stored, in a sync document.
    static func registers(cursor: Int64, records: [String]) -> Response {
        var body =
            #"{"format":"\#(SyncWireCoding.format)","version":\#(SyncWireCoding.version),"device":"server","cursor":\#(cursor),"records":["#
        body += records.joined(separator: ",")
        body += "]}"
        return json(.ok, body)
    }

    func write(_ request: Request) async throws -> Response {
        // A body announced too large is refused before a byte of it is read, and the
        // connection closed, so that a client cannot hold the request open by not sending it.
        if let announced = request.headers[.contentLength].flatMap({ Int($0) }), announced > settings.maxBodyBytes {
            throw ServerError(
                .contentTooLarge, "the body is larger than \(settings.maxBodyBytes) bytes: \(announced) announced", closesConnection: true)
        }
        let (user, token) = try await authenticated(request)
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: settings.maxBodyBytes)
        } catch is NIOTooManyBytesError {
            throw ServerError(.contentTooLarge, "the body is larger than \(settings.maxBodyBytes) bytes", closesConnection: true)
        } catch let error as HTTPParserError where error == .invalidEOFState {
            // The client hung up before its body was complete: its doing, not the server's.
            throw ServerError(.clientClosedRequest, "the client closed the connection before its body was complete")
        } catch let error as HTTPParserError {
            throw ServerError(.badRequest, "the body could not be read: \(error)", closesConnection: true)
        }
        let received: SyncWireCoding.Received
        do {
            received = try buffer.withUnsafeReadableBytes { bytes throws(SyncWireCoding.DecodingError) in try SyncWireCoding.received(bytes) }
        } catch {
            throw ServerError(.badRequest, "not a sync document: \(error.description)")
        }
        let records = received.document.records
        let sealed = received.document.sealed
        guard records.count + sealed.count <= settings.maxRecords else {
            throw ServerError(.contentTooLarge, "\(records.count + sealed.count) writes in one request; at most \(settings.maxRecords)")
        }
        // Each record is stored as it came, unless it had to be read through a value tree; a
        // sealed one is stored sealed.
        let heads: [StoredHead]
        do {
            heads = StoredHead.latest(
                try records.indices.map { index throws(JSONWriter.UnrepresentableValue) in
                    try StoredHead(records[index], json: received.texts?[index])
                } + sealed.indices.map { StoredHead(sealed[$0], json: received.sealedTexts?[$0]) })
        } catch {
            throw ServerError(.badRequest, "not a sync document: \(error.description)")
        }
        let changed: Int
        let cursor: Int64
        do {
            (changed, cursor) = try await storage.merge(heads, user: user, token: token, maxHeads: settings.maxHeadsPerUser)
            writeHealth.succeeded()
        } catch is TokenGone {
            throw ServerError(.unauthorized, "unknown or revoked token")
        } catch let full as QuotaFull {
            metrics.quotaRefused()
            logger.notice("quota full", metadata: ["user": "\(user.id)", "heads": "\(full.held)", "adding": "\(full.adding)"])
            throw ServerError(.forbidden, full.description)
        } catch {
            let known = StorageFailure.describe(error)
            writeHealth.failed(known?.message ?? "\(error)")
            if let known {
                logger.error("write failed", metadata: ["error": "\(known.message)"])
                throw ServerError(known.status, known.message)
            }
            throw error
        }
        metrics.merge(writes: heads.count, changed: changed)
        // When every head was stored, they are all the records of the new counter.
        // Then the other instances, so that this one's long-polls are answered with the records
        // before its own notification is heard.
        if changed > 0 {
            await waiters.changed(user: user.id, cursor: cursor, records: changed == heads.count ? heads.map(\.json) : nil)
            announcer?.announce(user: user.id, cursor: cursor)
        }
        return Self.json(.ok, #"{"changed":\#(changed),"cursor":\#(cursor)}"#)
    }

    /// `GET /v1/user`: the token's user's data, as `engine serve user export` writes it.
    func exportUser(_ request: Request) async throws -> Response {
        let user = try await authenticate(request)
        let export = try await storage.export(user: user)
        logger.notice("user exported", metadata: export.logMetadata(by: "token").merging(["user": "\(user.id)"]) { $1 })
        return Self.json(.ok, export.json(exportedAt: Date()))
    }

    /// `DELETE /v1/user`: erases the token's user's data; the token stops working.
    func eraseUser(_ request: Request) async throws -> Response {
        let user = try await authenticate(request)
        let erasure = try await storage.erase(user: user, at: Date())
        await erased(user: user, erasure, by: "token")
        return Self.json(.ok, erasure.json)
    }

    /// What follows an erasure here: its tokens forgotten, its long-polls woken (they find the
    /// token gone), other instances told, and the log.
    public func erased(user: StoredUser, _ erasure: UserErasure, by: String) async {
        for hash in erasure.tokenHashes { tokens.forget(tokenHash: hash) }
        await waiters.changed(user: user.id, cursor: erasure.cursor, records: nil)
        announcer?.announce(user: user.id, cursor: erasure.cursor)
        logger.notice("user erased", metadata: erasure.logMetadata(by: by).merging(["user": "\(user.id)"]) { $1 })
    }

    func authenticate(_ request: Request) async throws -> StoredUser {
        try await authenticated(request).user
    }

    /// The request's user, and its token's SHA-256 (which a merge checks again in its own
    /// transaction).
    func authenticated(_ request: Request) async throws -> (user: StoredUser, token: [UInt8]) {
        guard let token = ServerTokens.bearer(request.headers[.authorization]) else {
            throw ServerError(.unauthorized, "missing bearer token: send Authorization: Bearer TOKEN")
        }
        let hash = ServerTokens.hash(token)
        guard let user = try await tokens.user(forTokenHash: hash, lookup: { try await storage.user(forTokenHash: hash) }) else {
            throw ServerError(.unauthorized, "unknown or revoked token")
        }
        return (user, hash)
    }

    // MARK: Answers

    /// Each endpoint and the methods it answers (the `Allow` of a 405).
    static let routes: [String: [String]] = [
        "/health": ["GET"], "/metrics": ["GET"], "/v1/registers": ["GET", "POST"], "/v1/user": ["GET", "DELETE"],
    ]

    static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        var escaped = ""
        for scalar in message.unicodeScalars { Value.appendEscaped(scalar, to: &escaped) }
        return json(status, #"{"error":"\#(escaped)"}"#)
    }
}

/// A request the server refuses, with its status and message.
struct ServerError: Error {
    let status: HTTPResponse.Status
    let message: String
    /// Whether the answer closes the connection (the rest of the request is not read).
    let closesConnection: Bool

    init(_ status: HTTPResponse.Status, _ message: String, closesConnection: Bool = false) {
        self.status = status
        self.message = message
        self.closesConnection = closesConnection
    }
}

extension HTTPResponse.Status {
    /// 499, nginx's "client closed request": counted and logged for a request whose client
    /// left before it was read, which no answer reaches.
    static let clientClosedRequest = HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request")
}

/// A request's context: Hummingbird's, and the connection, which an answer that refuses the
/// rest of a request closes.
struct ServerRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// Turns every error into a JSON answer (`{"error": …}`), and counts every answer.
struct ErrorAndMetricsMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let metrics: ServerMetrics
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = DispatchTime.now().uptimeNanoseconds
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as ServerError {
            response = SyncServer.error(error.status, error.message)
            if error.closesConnection {
                // The connection is closed once the answer is written, without reading the
                // rest of the request.
                response.headers[.connection] = "close"
                let body = response.body
                let channel = context.channel
                response.body = ResponseBody(contentLength: body.contentLength) { writer in
                    try await body.write(writer)
                    channel.close(promise: nil)
                }
            }
        } catch let error as HTTPError {
            if error.status == .notFound, let allowed = SyncServer.routes[request.uri.path] {
                // The endpoint exists, not with this method.
                var refused = SyncServer.error(
                    .methodNotAllowed, "\(request.method) is not allowed on \(request.uri.path); use \(allowed.joined(separator: " or "))")
                refused.headers[.allow] = allowed.joined(separator: ", ")
                response = refused
            } else {
                let message =
                    error.status == .notFound
                    ? "no such endpoint: \(request.method) \(request.uri.path)" : (error.body ?? error.status.reasonPhrase)
                response = SyncServer.error(error.status, message)
            }
        } catch {
            logger.error("request failed", metadata: ["method": "\(request.method)", "path": "\(request.uri.path)", "error": "\(error)"])
            response = SyncServer.error(.internalServerError, "internal error")
        }
        let route = SyncServer.routes[request.uri.path] != nil ? request.uri.path : "other"
        let nanoseconds = Int64(DispatchTime.now().uptimeNanoseconds &- started)
        metrics.request(route: route, method: request.method.rawValue, status: response.status.code, nanoseconds: nanoseconds)
        logger.log(
            level: response.status.code >= 500 ? .error : .info, "request",
            metadata: [
                "method": "\(request.method)", "path": "\(request.uri.path)", "status": "\(response.status.code)",
                "ms": "\(String(format: "%.2f", Double(nanoseconds) / 1e6))",
            ])
        return response
    }
}

/// Retention: drops the heads of devices not written for `retention` seconds, at start and
/// every `interval` seconds after, until shutdown.
struct RetentionSweeper: Service {
    let storage: any RegisterStorage
    let retention: Double
    let interval: Double
    let logger: Logger
    var clock: any Clock<Duration> = ContinuousClock()
    var now: @Sendable () -> Date = Date.init

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await sweep()
                do {
                    try await clock.sleep(for: .nanoseconds(Int64(interval * 1e9)))
                } catch {
                    return
                }
            }
        }
    }

    /// One pass: the heads of devices not written since `retention` seconds ago are dropped.
    func sweep() async {
        do {
            let dropped = try await storage.dropHeads(writtenBefore: now().addingTimeInterval(-retention))
            if dropped > 0 { logger.notice("retention: heads dropped", metadata: ["heads": "\(dropped)", "days": "\(retention / 86_400)"]) }
        } catch {
            logger.error("retention failed", metadata: ["error": "\(error)"])
        }
    }
}

/// Answers every long-poll when shutdown begins, so that in-flight requests finish.
struct ShutdownWaker: Service {
    let waiters: ChangeWaiters

    func run() async throws {
        try? await gracefulShutdown()
        await waiters.close()
    }
}

/// Hears what other server instances did (PostgreSQL's LISTEN/NOTIFY): wakes long-polls for
/// the changes they made, and forgets the tokens revoked.
struct RemoteEventListener: Service {
    let events: AsyncStream<RemoteEvent>
    let waiters: ChangeWaiters
    let tokens: TokenCache

    func run() async throws {
        await cancelWhenGracefulShutdown {
            for await event in events {
                switch event {
                case .changed(let user, let cursor): await waiters.changed(user: user, cursor: cursor)
                case .revoked(let hash): tokens.forget(tokenHash: hash)
                case .listening: await waiters.listening()
                case .interrupted: await waiters.interrupted()
                }
            }
        }
    }
}
#endif
