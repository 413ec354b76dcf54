import Foundation
import TimelineEngineHTTPExchange

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `HTTPExchange` over the platform's URLSession: the default on Apple platforms, and the
/// command line's unless it is built with the package trait `NIOClient`. On Linux it links
/// FoundationNetworking (libcurl and its libraries), which an `engine` built with `NIOClient`
/// does not.
public struct URLSessionExchange: HTTPExchange {
    public init() {}

    public func send(_ request: HTTPExchangeRequest) async throws(HTTPExchangeError) -> HTTPExchangeAnswer {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = request.timeout
        configuration.timeoutIntervalForResource = request.timeout
        configuration.urlCache = nil
        let (prepared, limit, followsOtherOrigins) = (urlRequest, request.maxBodyBytes, request.followsOtherOrigins)
        let answer: (Data, URLResponse)
        do {
            answer = try await HTTPExchanges.withDeadline(seconds: request.timeout) {
                try await BoundedDownload.data(for: prepared, configuration: configuration, limit: limit, followsOtherOrigins: followsOtherOrigins)
            }
        } catch let error as HTTPExchangeError {
            throw error
        } catch let error as BoundedDownload.RefusedRedirect {
            throw HTTPExchangeError.crossOriginRedirect(to: error.location)
        } catch let error as BoundedDownload.TooLarge {
            throw HTTPExchangeError(.tooLarge(limit: error.limit), "the answer is larger than \(error.limit) bytes")
        } catch {
            throw Self.transportError(error)
        }
        let (body, response) = answer
        guard let http = response as? HTTPURLResponse else { throw HTTPExchangeError(.other, "the answer is not HTTP") }
        // A compressed answer's Content-Length counts the compressed bytes; URLSession hands over
        // the body decompressed, so only an answer sent as it is can be checked against it.
        let encoding = (http.value(forHTTPHeaderField: "Content-Encoding") ?? "identity").trimmingCharacters(in: .whitespaces).lowercased()
        if encoding == "identity" || encoding.isEmpty, let expected = Int(http.value(forHTTPHeaderField: "Content-Length") ?? ""),
            expected > body.count
        {
            throw HTTPExchangeError(.connectionLost, "the answer was cut short: \(body.count) of \(expected) bytes")
        }
        var headers: [(name: String, value: String)] = []
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers.append((name, value)) }
        }
        return HTTPExchangeAnswer(status: http.statusCode, headers: headers, body: body)
    }

    static func transportError(_ error: any Error) -> HTTPExchangeError {
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else { return HTTPExchangeError(.other, "the request failed: \(error.localizedDescription)") }
        switch nsError.code {
        case NSURLErrorTimedOut:
            return HTTPExchangeError(.timedOut, "timed out")
        case NSURLErrorNetworkConnectionLost:
            return HTTPExchangeError(.connectionLost, "the connection was lost before the answer was complete")
        case NSURLErrorUnknown where nsError.localizedDescription.contains("bytes remaining"):
            // libcurl (Linux) reports a body cut short of its Content-Length as an unknown error
            // "transfer closed with N bytes remaining to read".
            return HTTPExchangeError(.connectionLost, "the connection was lost before the answer was complete")
        case NSURLErrorCannotConnectToHost:
            return HTTPExchangeError(.refused, "cannot connect: the connection was refused")
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed:
            return HTTPExchangeError(.unknownHost, "cannot connect: the host name was not found")
        case NSURLErrorNotConnectedToInternet:
            return HTTPExchangeError(.offline, "cannot connect: not connected to a network")
        case NSURLErrorCancelled:
            return HTTPExchangeError(.other, "cancelled")
        default:
            return HTTPExchangeError(.other, "the request failed: \(nsError.localizedDescription)")
        }
    }
}
