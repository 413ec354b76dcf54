import Foundation
import TimelineEngineSupport

/// One HTTP request and its answer, whatever does the networking: the small protocol the
/// timeline sources and the HTTP sync transport talk through, so that the library itself
/// links no networking stack. `URLSessionExchange` (module TimelineEngineURLSessionHTTP) is the platform's
/// URLSession: the default on Apple platforms, and the command line's by default;
/// `NIOHTTPExchange` (module TimelineEngineNIOHTTP, on AsyncHTTPClient) links no FoundationNetworking, and is
/// the command line's with the package trait `NIOClient`. An app may bring its own.
///
/// An implementation must:
/// - end the exchange, with `.timedOut`, once `timeout` seconds have passed since it started;
/// - stop reading, with `.tooLarge`, an answer that announces or sends more than
///   `maxBodyBytes`;
/// - follow redirects (at most 5), sending `Authorization` only to the origin (scheme, host and
///   port) it was meant for; with `followsOtherOrigins` false, end the exchange at a redirect
///   to another origin with `HTTPExchangeError.crossOriginRedirect(to:)`;
/// - report a body cut short of its `Content-Length` as `.connectionLost`.
public protocol HTTPExchange: Sendable {
    func send(_ request: HTTPExchangeRequest) async throws(HTTPExchangeError) -> HTTPExchangeAnswer
}

/// What to send.
public struct HTTPExchangeRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [(name: String, value: String)]
    public var body: Data?
    /// Seconds the whole exchange may take, from sending to the last byte of the answer.
    public var timeout: Double
    /// The largest answer body read.
    public var maxBodyBytes: Int
    /// Whether a redirect to another origin is followed (without `Authorization`). Sync
    /// transports say no: positions are posted to the server configured, never elsewhere.
    public var followsOtherOrigins = true

    public init(
        method: String = "GET", url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil, timeout: Double,
        maxBodyBytes: Int, followsOtherOrigins: Bool = true
    ) {
        self.followsOtherOrigins = followsOtherOrigins
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
    }
}

/// What came back.
public struct HTTPExchangeAnswer: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Data

    public init(status: Int, headers: [(name: String, value: String)], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name`, compared without regard to case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Why an exchange did not bring an answer.
public struct HTTPExchangeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why there was no answer: a timeout, an answer too large, nobody listening, no such host,
    /// no network, or a connection ended early.
    public enum Kind: Sendable, Equatable {
        case timedOut
        case tooLarge(limit: Int)
        /// Nothing listens there.
        case refused
        case unknownHost
        /// No network at all.
        case offline
        /// The connection ended before the answer was complete.
        case connectionLost
        /// No HTTP client was bootstrapped (`HTTPExchanges.bootstrap`).
        case unavailable
        /// A redirect to another origin, not followed (`followsOtherOrigins` false).
        case crossOriginRedirect(to: String)
        /// More redirects than `HTTPExchanges.maximumRedirects`: a loop, or a chain too long.
        case tooManyRedirects(last: String)
        case other
    }

    /// The error for a redirect to `location`, another origin, that was not followed.
    public static func crossOriginRedirect(to location: URL) -> HTTPExchangeError {
        HTTPExchangeError(
            .crossOriginRedirect(to: location.absoluteString),
            "redirected to another origin (\(location.absoluteString)); not followed")
    }

    /// The error for a redirect beyond `HTTPExchanges.maximumRedirects`, to `location`.
    public static func tooManyRedirects(to location: URL) -> HTTPExchangeError {
        HTTPExchangeError(
            .tooManyRedirects(last: location.absoluteString),
            "more than \(HTTPExchanges.maximumRedirects) redirects, the last to \(location.absoluteString): the server redirects in a loop; not followed"
        )
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// The server could not be reached at all: a sync transport is then offline.
    public var isUnreachable: Bool {
        switch kind {
        case .timedOut, .refused, .unknownHost, .offline, .connectionLost: return true
        case .tooLarge, .unavailable, .other, .crossOriginRedirect, .tooManyRedirects: return false
        }
    }
}

/// The process's HTTP client, as swift-log bootstraps its backend: set once, early, by the
/// program (the command line bootstraps the client its package trait chose; the `TimelineEngine`
/// façade uses URLSession on Apple platforms when nothing was set).
public enum HTTPExchanges {
    /// The most redirects an exchange follows; one more ends it (`HTTPExchangeError.tooManyRedirects`).
    public static let maximumRedirects = 5

    private static let installed = Locked<(any HTTPExchange)?>(nil)

    /// Makes `exchange` the process's HTTP client. Later calls replace it.
    public static func bootstrap(_ exchange: any HTTPExchange) {
        installed.withLock { $0 = exchange }
    }

    /// Bootstraps `exchange` unless a client is set already.
    public static func bootstrapIfNeeded(_ exchange: @autoclosure () -> any HTTPExchange) {
        installed.withLock { if $0 == nil { $0 = exchange() } }
    }

    /// The client set by `bootstrap`, or one that fails every request saying so.
    public static var shared: any HTTPExchange {
        installed.withLock { $0 } ?? Unavailable()
    }

    struct Unavailable: HTTPExchange {
        func send(_ request: HTTPExchangeRequest) async throws(HTTPExchangeError) -> HTTPExchangeAnswer {
            throw HTTPExchangeError(
                .unavailable,
                """
                no HTTP client: bootstrap one with HTTPExchanges.bootstrap (NIOHTTPExchange from NIOHTTP, or URLSessionExchange \
                from URLSessionHTTP)
                """)
        }
    }

    /// Runs `body`, or throws `.timedOut` once `seconds` have passed: the whole-exchange
    /// deadline every client owes its callers.
    public static func withDeadline<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
                throw HTTPExchangeError(.timedOut, "timed out")
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }

    /// Whether two URLs share scheme, host and port: a redirect between them keeps the token.
    public static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil) }
        return a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased() && port(a) == port(b)
    }
}
