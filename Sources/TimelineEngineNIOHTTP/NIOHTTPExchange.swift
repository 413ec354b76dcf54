import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import TimelineEngineHTTPExchange

/// `HTTPExchange` on AsyncHTTPClient (SwiftNIO): what the command line uses with the package
/// trait `NIOClient`, so that the `engine` executable links no FoundationNetworking (libcurl and
/// its libraries), and starts sooner.
///
/// Redirects are followed here rather than by AsyncHTTPClient, so that the token goes only to
/// the origin it was meant for.
public struct NIOHTTPExchange: HTTPExchange {
    /// The shared client, made at the first request: a command that sends none (`engine
    /// validate`) starts no event loop threads.
    var client: HTTPClient { Self.sharedClient }

    /// The most redirects followed.
    public static let maximumRedirects = HTTPExchanges.maximumRedirects

    /// A shared client that follows no redirects and retries no failed connection itself: the
    /// engine's network policies decide retries, and a refused connection is reported at once
    /// (AsyncHTTPClient would otherwise retry it until its 10-second connect timeout).
    static let sharedClient: HTTPClient = {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.decompression = .disabled
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton), configuration: configuration)
    }()

    public init() {}

    public func send(_ request: HTTPExchangeRequest) async throws(HTTPExchangeError) -> HTTPExchangeAnswer {
        do {
            return try await HTTPExchanges.withDeadline(seconds: request.timeout) { try await follow(request) }
        } catch let error as HTTPExchangeError {
            throw error
        } catch {
            throw Self.transportError(error)
        }
    }

    /// The exchange, following redirects.
    private func follow(_ request: HTTPExchangeRequest) async throws -> HTTPExchangeAnswer {
        var url = request.url
        var method = request.method
        var headers = request.headers
        var body = request.body
        let deadline = NIODeadline.now() + .nanoseconds(Int64(max(0, request.timeout) * 1e9))
        for hop in 0...Self.maximumRedirects {
            var outgoing = HTTPClientRequest(url: url.absoluteString)
            outgoing.method = HTTPMethod(rawValue: method)
            for (name, value) in headers { outgoing.headers.add(name: name, value: value) }
            if !headers.contains(where: { $0.name.lowercased() == "user-agent" }) {
                outgoing.headers.add(name: "User-Agent", value: "TimelineEngine")
            }
            if let body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
            let response = try await client.execute(outgoing, deadline: deadline)
            let status = Int(response.status.code)
            if [301, 302, 303, 307, 308].contains(status),
                let location = response.headers.first(name: "Location"), let next = URL(string: location, relativeTo: url)?.absoluteURL
            {
                guard hop < Self.maximumRedirects else { throw HTTPExchangeError.tooManyRedirects(to: next) }
                if !HTTPExchanges.sameOrigin(url, next) {
                    guard request.followsOtherOrigins else { throw HTTPExchangeError.crossOriginRedirect(to: next) }
                    headers.removeAll { $0.name.lowercased() == "authorization" }
                }
                if status == 303 || ((status == 301 || status == 302) && method == "POST") {
                    method = "GET"
                    body = nil
                }
                url = next
                continue
            }
            let limit = request.maxBodyBytes
            if let announced = response.headers.first(name: "Content-Length").flatMap(Int.init), announced > limit {
                throw HTTPExchangeError(.tooLarge(limit: limit), "the answer is larger than \(limit) bytes")
            }
            var collected = Data()
            for try await chunk in response.body {
                collected.append(contentsOf: chunk.readableBytesView)
                if collected.count > limit { throw HTTPExchangeError(.tooLarge(limit: limit), "the answer is larger than \(limit) bytes") }
            }
            if let announced = response.headers.first(name: "Content-Length").flatMap(Int.init), announced > collected.count {
                throw HTTPExchangeError(.connectionLost, "the answer was cut short: \(collected.count) of \(announced) bytes")
            }
            return HTTPExchangeAnswer(status: status, headers: response.headers.map { ($0.name, $0.value) }, body: collected)
        }
        throw HTTPExchangeError(.other, "more than \(Self.maximumRedirects) redirects")
    }

    /// AsyncHTTPClient's and SwiftNIO's errors, as the kinds the engine tells apart.
    static func transportError(_ error: any Error) -> HTTPExchangeError {
        if let client = error as? HTTPClientError {
            switch client {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout:
                return HTTPExchangeError(.timedOut, "timed out")
            case .remoteConnectionClosed, .bodyLengthMismatch:
                return HTTPExchangeError(.connectionLost, "the connection was lost before the answer was complete")
            case .cancelled:
                return HTTPExchangeError(.other, "cancelled")
            default:
                return HTTPExchangeError(.other, "the request failed: \(client)")
            }
        }
        if error is CancellationError { return HTTPExchangeError(.other, "cancelled") }
        if let parser = error as? HTTPParserError, parser == .invalidEOFState {
            // The connection closed before the body reached its Content-Length.
            return HTTPExchangeError(.connectionLost, "the connection was lost before the answer was complete")
        }
        let text = String(describing: error)
        if text.contains("connectTimeout") { return HTTPExchangeError(.timedOut, "timed out") }
        if text.contains("refused") || text.contains("ECONNREFUSED") {
            return HTTPExchangeError(.refused, "cannot connect: the connection was refused")
        }
        if text.contains("dns") || text.contains("DNS") || text.contains("NXDOMAIN") || text.contains("unknown host") {
            return HTTPExchangeError(.unknownHost, "cannot connect: the host name was not found")
        }
        if text.contains("ENETUNREACH") || text.contains("EHOSTUNREACH") || text.contains("unreachable") {
            return HTTPExchangeError(.offline, "cannot connect: not connected to a network")
        }
        if let posix = error as? IOError, [ECONNRESET, EPIPE].contains(posix.errnoCode) {
            return HTTPExchangeError(.connectionLost, "the connection was lost before the answer was complete")
        }
        return HTTPExchangeError(.other, "the request failed: \(text)")
    }
}
