import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 for tests: it serves scripted answers per path and
/// injects the failures a real server shows (slow or missing answers, bodies cut short,
/// wrong content) at the byte level, which a framework's response model cannot express. Each
/// connection gets one answer and is closed. Every request is recorded with its arrival time.
// @unchecked: scripts, handlers, requests and the stopped flag are read and written under `lock` only.
public final class LoopbackHTTPServer: @unchecked Sendable {
    /// One scripted answer.
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [(String, String)]
        public var body: Data
        /// Seconds to wait before answering; `.infinity` holds the answer until the server
        /// stops, so a test can act on a request in flight however slowly it runs.
        public var delay: Double
        /// Send only this many bytes of the body (the Content-Length still announces all of it),
        /// then close the connection.
        public var truncateAfter: Int?
        /// False to send no Content-Length: the body ends when the connection closes.
        public var announcesLength: Bool

        public init(
            status: Int = 200, headers: [(String, String)] = [("Content-Type", "application/json; charset=utf-8")],
            body: Data = Data(), delay: Double = 0, truncateAfter: Int? = nil, announcesLength: Bool = true
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delay = delay
            self.truncateAfter = truncateAfter
            self.announcesLength = announcesLength
        }

        public static func json(_ body: Data, status: Int = 200) -> Answer { Answer(status: status, body: body) }
    }

    /// A request as it arrived.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [String: String]
        /// Seconds since the server started.
        public var arrivedAt: Double
    }

    public let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var scripts: [String: [Answer]] = [:]
    private var handlers: [String: @Sendable (Request, Data) -> Answer] = [:]
    private var prefixHandlers: [(prefix: String, handler: @Sendable (Request, Data) -> Answer)] = []
    private var requests: [Request] = []
    private var stopped = false
    private let started = Date()

    /// Starts listening on an ephemeral loopback port.
    public init() throws {
        #if canImport(Glibc)
        let socketType = Int32(SOCK_STREAM.rawValue)
        #else
        let socketType = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, socketType, 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        // The accept loop holds the server weakly, so that dropping the server stops it.
        let thread = Thread { [weak self, descriptor] in
            while true {
                let connection = accept(descriptor, nil, nil)
                if connection < 0 {
                    if errno == EINTR, self?.isStopped == false { continue }
                    return
                }
                guard let self else {
                    close(connection)
                    return
                }
                Thread { self.serve(connection) }.start()
            }
        }
        thread.start()
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    deinit {
        stop()
    }

    /// The base URL, `http://127.0.0.1:PORT`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Answers requests to `path` with `answers` in turn; the last one repeats.
    public func script(_ path: String, _ answers: [Answer]) {
        lock.withLock { scripts[path] = answers }
    }

    /// Answers requests to `path` by calling `handler` with the request and its body (read to
    /// its Content-Length): a fake of a server's logic.
    public func handle(_ path: String, _ handler: @escaping @Sendable (Request, Data) -> Answer) {
        lock.withLock { handlers[path] = handler }
    }

    /// Answers requests to every path that begins with `prefix` (and has no handler of its own)
    /// by calling `handler`: a route with a parameter, as `/api/v1/statuses/:id`.
    public func handle(prefix: String, _ handler: @escaping @Sendable (Request, Data) -> Answer) {
        lock.withLock { prefixHandlers.append((prefix, handler)) }
    }

    /// The requests so far, in arrival order.
    public var received: [Request] {
        lock.withLock { requests }
    }

    /// Stops accepting connections.
    public func stop() {
        let wasStopped = lock.withLock {
            defer { stopped = true }
            return stopped
        }
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var noSignal: Int32 = 1
        #if canImport(Darwin)
        setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &noSignal, socklen_t(MemoryLayout<Int32>.size))
        #else
        _ = noSignal
        #endif
        guard let (head, rest) = readHead(connection) else { return }
        let lines = head.components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ").map(String.init) ?? []
        guard parts.count >= 2 else { return }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let path = String(parts[1].split(separator: "?", maxSplits: 1).first ?? "")
        let request = Request(method: parts[0], path: parts[1], headers: headers, arrivedAt: Date().timeIntervalSince(started))
        if let handler = lock.withLock({ handlers[path] ?? prefixHandlers.first { path.hasPrefix($0.prefix) }?.handler }) {
            lock.withLock { requests.append(request) }
            let length = min(Int(headers["content-length"] ?? "0") ?? 0, 16 << 20)
            var body = rest
            var buffer = [UInt8](repeating: 0, count: 4096)
            while body.count < length {
                let count = recv(connection, &buffer, buffer.count, 0)
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                body.append(contentsOf: buffer[0..<count])
            }
            reply(handler(request, body.prefix(length)), on: connection)
            return
        }
        let answer: Answer = lock.withLock {
            requests.append(request)
            guard var queue = scripts[path], !queue.isEmpty else {
                return Answer(status: 404, body: Data(#"{"error":"Record not found"}"#.utf8))
            }
            let next = queue.count > 1 ? queue.removeFirst() : queue[0]
            scripts[path] = queue
            return next
        }
        reply(answer, on: connection)
    }

    private func reply(_ answer: Answer, on connection: Int32) {
        // The wait ends early when the server stops, so that no connection outlives its test.
        let until = Date().addingTimeInterval(min(answer.delay, 3_600))
        while answer.delay > 0, Date() < until, !isStopped {
            Thread.sleep(forTimeInterval: min(0.05, until.timeIntervalSinceNow))  // off-pool: the connection's own thread
        }
        if answer.delay.isInfinite { return }
        var response = "HTTP/1.1 \(answer.status) \(Self.reason(answer.status))\r\n"
        for (name, value) in answer.headers { response += "\(name): \(value)\r\n" }
        if answer.announcesLength { response += "Content-Length: \(answer.body.count)\r\n" }
        response += "Connection: close\r\n\r\n"
        var bytes = Data(response.utf8)
        bytes.append(answer.truncateAfter.map { answer.body.prefix($0) } ?? answer.body)
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                #if canImport(Glibc)
                let sent = send(connection, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                #else
                let sent = send(connection, buffer.baseAddress! + offset, buffer.count - offset, 0)
                #endif
                if sent < 0, errno == EINTR { continue }
                if sent <= 0 { return }
                offset += sent
            }
        }
    }

    /// The request's head, and what of the body arrived with it.
    private func readHead(_ connection: Int32) -> (String, Data)? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while data.count < 65_536 {
            let count = recv(connection, &buffer, buffer.count, 0)
            // A signal (a child process ending) may interrupt the wait: it is not the client's end.
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return nil }
            data.append(contentsOf: buffer[0..<count])
            if let end = data.range(of: Data("\r\n\r\n".utf8)) {
                return (String(decoding: data[..<end.lowerBound], as: UTF8.self), Data(data[end.upperBound...]))
            }
        }
        return nil
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}
