import Foundation

/// A real server's recorded HTTP exchanges (`Tests/Fixtures/servers/<server>/*.json`, the format
/// of `Tests/Fixtures/servers/README.md`) answered again on 127.0.0.1, so that the loading and
/// sync tests walk an app's flows against what a real server said.
///
/// A request is answered by the recorded exchange with the same method, path and query (its
/// items in any order); a request recorded several times is answered by its recordings in turn,
/// the last one again once they run out. Anything else is a 500 that names what was asked, so a
/// test that asks what the recording never saw fails plainly. The recorded origin in bodies and
/// headers (`Link`) becomes this server's. `Content-Length`, `Content-Encoding` and
/// `Transfer-Encoding` are not replayed: the body is stored decoded, and the server sets its length.
public final class RecordedServer: @unchecked Sendable {
    // @unchecked: `queues` is read and written only under `lock`, by the server's handler threads.
    public let server: LoopbackHTTPServer
    /// The origin the exchanges were recorded at (`http://localhost:3000`).
    public let recordedOrigin: String
    private let lock = NSLock()
    private var queues: [String: [LoopbackHTTPServer.Answer]] = [:]

    /// One recorded exchange, as the fixture files hold it.
    public struct Exchange: Sendable {
        public var method: String
        public var url: URL
        public var status: Int
        public var headers: [(String, String)]
        public var body: String
    }

    /// The exchanges of the fixture files `names` (without `.json`) of `Tests/Fixtures/servers/<server>`, in order.
    public static func exchanges(server: String, _ names: [String]) throws -> [Exchange] {
        var exchanges: [Exchange] = []
        for name in names {
            let url = Fixtures.repositoryURL("Tests/Fixtures/servers/\(server)/\(name).json")
            guard let root = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any],
                let list = root["exchanges"] as? [[String: Any]]
            else { throw FixtureError("\(url.path): no exchanges") }
            for item in list {
                guard let request = item["request"] as? [String: Any], let response = item["response"] as? [String: Any],
                    let method = request["method"] as? String, let address = (request["url"] as? String).flatMap(URL.init(string:)),
                    let status = response["status"] as? Int
                else { throw FixtureError("\(url.path): an exchange lacks its request or status") }
                let headers = (response["headers"] as? [[String]] ?? []).compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
                exchanges.append(Exchange(method: method, url: address, status: status, headers: headers, body: response["body"] as? String ?? ""))
            }
        }
        return exchanges
    }

    /// A server answering `exchanges`, recorded at `recordedOrigin`.
    public init(_ exchanges: [Exchange], recordedOrigin: String) throws {
        server = try LoopbackHTTPServer()
        self.recordedOrigin = recordedOrigin
        let origin = server.baseURL
        for exchange in exchanges {
            let headers = exchange.headers
                .filter { !["content-length", "content-encoding", "transfer-encoding", "connection"].contains($0.0.lowercased()) }
                .map { ($0.0, $0.1.replacingOccurrences(of: recordedOrigin, with: origin)) }
            let body = Data(exchange.body.replacingOccurrences(of: recordedOrigin, with: origin).utf8)
            queues[Self.key(exchange.method, exchange.url), default: []].append(
                LoopbackHTTPServer.Answer(status: exchange.status, headers: headers, body: body))
        }
        server.handle(prefix: "/") { [unowned self] request, _ in answer(request) }
    }

    /// The base URL tests use in place of the recorded origin.
    public var baseURL: String { server.baseURL }

    /// The URL the recording asked at `path` (with its query), on this server.
    public func url(_ path: String) -> URL { URL(string: server.baseURL + path)! }

    /// The requests so far: method and path with query.
    public var requests: [String] { server.received.map { "\($0.method) \($0.path)" } }

    public func stop() { server.stop() }

    private func answer(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Answer {
        guard let url = URL(string: "http://127.0.0.1" + request.path) else { return notRecorded(request) }
        let key = Self.key(request.method, url)
        return lock.withLock { () -> LoopbackHTTPServer.Answer in
            guard var queue = queues[key], let first = queue.first else { return notRecorded(request) }
            if queue.count > 1 { queue.removeFirst() }
            queues[key] = queue
            return first
        }
    }

    private func notRecorded(_ request: LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Answer {
        LoopbackHTTPServer.Answer(
            status: 500, headers: [("Content-Type", "text/plain")],
            body: Data("not in the recording: \(request.method) \(request.path)".utf8))
    }

    /// Method, path and the query's items sorted: what a request is matched by.
    static func key(_ method: String, _ url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let items = (components?.percentEncodedQueryItems ?? []).map { "\($0.name)=\($0.value ?? "")" }.sorted()
        return "\(method) \(components?.percentEncodedPath ?? url.path)?\(items.joined(separator: "&"))"
    }
}

/// A fixture that cannot be read.
public struct FixtureError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
