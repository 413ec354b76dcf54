import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPExchange

/// One URLSession data task whose body may not exceed a limit: an answer that announces more,
/// or sends more, is cancelled as it arrives instead of being buffered whole. Cancelling the
/// calling task cancels the request.
// @unchecked: URLSession calls the delegate on its own queue; the received bytes and the continuation are touched under `lock` only.
final class BoundedDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// The body was larger than the limit.
    struct TooLarge: Error {
        let limit: Int
    }

    /// A redirect to another origin that was refused.
    struct RefusedRedirect: Error {
        let location: URL
    }

    private let limit: Int
    private let followsOtherOrigins: Bool
    private var refusedRedirect: URL?
    /// Redirects followed so far, and the one beyond `HTTPExchanges.maximumRedirects`, refused.
    private var redirects = 0
    private var redirectBeyondLimit: URL?
    private let lock = NSLock()
    private var body = Data()
    private var response: URLResponse?
    private var tooLarge = false
    private var continuation: CheckedContinuation<(Data, URLResponse), any Error>?

    private init(limit: Int, followsOtherOrigins: Bool) {
        self.limit = limit
        self.followsOtherOrigins = followsOtherOrigins
    }

    /// Runs `request` on a new session built from `configuration`.
    static func data(for request: URLRequest, configuration: URLSessionConfiguration, limit: Int,
                     followsOtherOrigins: Bool = true) async throws -> (Data, URLResponse) {
        let download = BoundedDownload(limit: limit, followsOtherOrigins: followsOtherOrigins)
        let session = URLSession(configuration: configuration, delegate: download, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                download.lock.withLock { download.continuation = continuation }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let tooLong = response.expectedContentLength > Int64(limit)
        lock.withLock {
            self.response = response
            if tooLong { tooLarge = true }
        }
        completionHandler(tooLong ? .cancel : .allow)
    }

    /// Follows redirects, but sends the access token only to the origin it was meant for: a
    /// redirect to another scheme, host or port loses the `Authorization` header.
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        var next = request
        let beyondLimit = lock.withLock {
            redirects += 1
            if redirects > HTTPExchanges.maximumRedirects { redirectBeyondLimit = request.url ?? response.url }
            return redirectBeyondLimit != nil
        }
        if beyondLimit {
            completionHandler(nil)
            return
        }
        if let from = task.originalRequest?.url, let to = request.url, !HTTPExchanges.sameOrigin(from, to) {
            guard followsOtherOrigins else {
                lock.withLock { refusedRedirect = to }
                completionHandler(nil)
                return
            }
            next.setValue(nil, forHTTPHeaderField: "Authorization")
        }
        completionHandler(next)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let exceeded = lock.withLock {
            body.append(data)
            if body.count > limit { tooLarge = true }
            return tooLarge
        }
        if exceeded { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, result): (CheckedContinuation<(Data, URLResponse), any Error>?, Result<(Data, URLResponse), any Error>) = lock.withLock {
            defer { self.continuation = nil }
            if tooLarge { return (self.continuation, .failure(TooLarge(limit: limit))) }
            if let refusedRedirect { return (self.continuation, .failure(RefusedRedirect(location: refusedRedirect))) }
            if let redirectBeyondLimit { return (self.continuation, .failure(HTTPExchangeError.tooManyRedirects(to: redirectBeyondLimit))) }
            if let error { return (self.continuation, .failure(error)) }
            guard let response else { return (self.continuation, .failure(URLError(.badServerResponse))) }
            return (self.continuation, .success((body, response)))
        }
        continuation?.resume(with: result)
    }
}
