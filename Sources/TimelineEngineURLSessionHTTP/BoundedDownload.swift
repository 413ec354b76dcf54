import Foundation
import TimelineEngineHTTPExchange
import TimelineEngineSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One URLSession data task whose body may not exceed a limit: an answer that announces more,
/// or sends more, is cancelled as it arrives instead of being buffered whole. Cancelling the
/// calling task cancels the request.
final class BoundedDownload: NSObject, URLSessionDataDelegate, Sendable {
    /// The body was larger than the limit.
    struct TooLarge: Error {
        let limit: Int
    }

    /// A redirect to another origin that was refused.
    struct RefusedRedirect: Error {
        let location: URL
    }

    /// What the delegate's calls, on URLSession's queue, have received so far.
    private struct Received {
        var refusedRedirect: URL?
        /// Redirects followed so far, and the one beyond `HTTPExchanges.maximumRedirects`, refused.
        var redirects = 0
        var redirectBeyondLimit: URL?
        var body = Data()
        var response: URLResponse?
        var tooLarge = false
        var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
    }

    private let limit: Int
    private let followsOtherOrigins: Bool
    private let received = Locked(Received())

    private init(limit: Int, followsOtherOrigins: Bool) {
        self.limit = limit
        self.followsOtherOrigins = followsOtherOrigins
    }

    /// Runs `request` on a new session built from `configuration`.
    static func data(
        for request: URLRequest, configuration: URLSessionConfiguration, limit: Int,
        followsOtherOrigins: Bool = true
    ) async throws -> (Data, URLResponse) {
        let download = BoundedDownload(limit: limit, followsOtherOrigins: followsOtherOrigins)
        let session = URLSession(configuration: configuration, delegate: download, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                download.received.withLock { $0.continuation = continuation }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let tooLong = response.expectedContentLength > Int64(limit)
        received.withLock {
            $0.response = response
            if tooLong { $0.tooLarge = true }
        }
        completionHandler(tooLong ? .cancel : .allow)
    }

    /// Follows redirects, but sends the access token only to the origin it was meant for: a
    /// redirect to another scheme, host or port loses the `Authorization` header.
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        var next = request
        let beyondLimit = received.withLock { received in
            received.redirects += 1
            if received.redirects > HTTPExchanges.maximumRedirects { received.redirectBeyondLimit = request.url ?? response.url }
            return received.redirectBeyondLimit != nil
        }
        if beyondLimit {
            completionHandler(nil)
            return
        }
        if let from = task.originalRequest?.url, let to = request.url, !HTTPExchanges.sameOrigin(from, to) {
            guard followsOtherOrigins else {
                received.withLock { $0.refusedRedirect = to }
                completionHandler(nil)
                return
            }
            next.setValue(nil, forHTTPHeaderField: "Authorization")
        }
        completionHandler(next)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let exceeded = received.withLock { received in
            received.body.append(data)
            if received.body.count > limit { received.tooLarge = true }
            return received.tooLarge
        }
        if exceeded { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, result): (CheckedContinuation<(Data, URLResponse), any Error>?, Result<(Data, URLResponse), any Error>) = received.withLock
        { received in
            let continuation = received.continuation
            received.continuation = nil
            if received.tooLarge { return (continuation, .failure(TooLarge(limit: limit))) }
            if let refusedRedirect = received.refusedRedirect { return (continuation, .failure(RefusedRedirect(location: refusedRedirect))) }
            if let beyond = received.redirectBeyondLimit { return (continuation, .failure(HTTPExchangeError.tooManyRedirects(to: beyond))) }
            if let error { return (continuation, .failure(error)) }
            guard let response = received.response else { return (continuation, .failure(URLError(.badServerResponse))) }
            return (continuation, .success((received.body, response)))
        }
        continuation?.resume(with: result)
    }
}
