import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StrategyKit
import TimelineCore
import TimelineFormats

/// One request to a Mastodon or Bluesky timeline endpoint through the platform's URLSession,
/// bounded by a timeout from sending the request to the last byte of the answer.
public struct HTTPTimelineClient: Sendable {
    /// Seconds one request may take in all.
    public let timeout: Double
    /// The largest answer body read, in bytes; a larger answer is cut off as it arrives.
    public let maxBodyBytes: Int

    /// 32 MiB: a page of 40 Mastodon statuses is about 100 KB.
    public static let defaultMaxBodyBytes = 32 << 20

    public init(timeout: Double, maxBodyBytes: Int = defaultMaxBodyBytes) {
        self.timeout = timeout
        self.maxBodyBytes = maxBodyBytes
    }

    /// One attempt that went wrong: the failure as the network policy sees it, and a sentence
    /// for the reader.
    public struct AttemptError: Error, Sendable, Equatable {
        public var failure: FetchFailure
        public var message: String
    }

    /// Requests `url` once and reads the answer as `api`'s timeline shape.
    public func fetch(_ url: URL, api: TimelineSource.API, token: String?) async -> Result<[Post], AttemptError> {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("TimelineEngine/\(TimelineLoading.version)", forHTTPHeaderField: "User-Agent")
        if let token, !token.isEmpty { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        configuration.urlCache = nil

        let answer: (Data, URLResponse)
        let prepared = request
        let limit = maxBodyBytes
        do {
            answer = try await Self.withDeadline(seconds: timeout) {
                try await BoundedDownload.data(for: prepared, configuration: configuration, limit: limit)
            }
        } catch let error as AttemptError {
            return .failure(error)
        } catch let error as BoundedDownload.TooLarge {
            return .failure(AttemptError(failure: .invalidContent("answer too large"),
                                         message: "the answer is larger than \(error.limit) bytes; it was not read"))
        } catch {
            return .failure(Self.transportError(error))
        }
        let (body, response) = answer
        guard let http = response as? HTTPURLResponse else {
            return .failure(AttemptError(failure: .invalidContent("not an HTTP answer"), message: "the answer is not HTTP"))
        }
        if let expected = Int(http.value(forHTTPHeaderField: "Content-Length") ?? ""), expected > body.count {
            return .failure(AttemptError(failure: .truncated,
                                         message: "the answer was cut short: \(body.count) of \(expected) bytes"))
        }
        guard (200...299).contains(http.statusCode) else {
            let wait = RetryAfter.seconds(from: http, status: http.statusCode)
            let failure = FetchFailure.http(status: http.statusCode, retryAfter: wait)
            var message = "HTTP \(http.statusCode)"
            if let reason = Self.serverMessage(body) { message += ": \(reason)" }
            if let wait { message += " (the server asks to wait \(RetryAfter.describe(wait)))" }
            if http.statusCode == 401, token == nil { message += "; no access token was sent" }
            return .failure(AttemptError(failure: failure, message: message))
        }
        let contentType = http.value(forHTTPHeaderField: "Content-Type") ?? ""
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard mediaType == "application/json" || mediaType.hasSuffix("+json") else {
            let shown = contentType.isEmpty ? "no Content-Type" : "Content-Type \(contentType)"
            return .failure(AttemptError(failure: .invalidContent("wrong content type"),
                                         message: "expected application/json, got \(shown)"))
        }
        do {
            let format: TimelineFormat = api == .mastodon ? .mastodon : .bluesky
            return .success(try TimelineFormat.read(body, format: format).posts)
        } catch {
            let shape = api == .mastodon ? "a Mastodon timeline (an array of Status)" : "a Bluesky timeline (app.bsky.feed.getTimeline)"
            return .failure(AttemptError(failure: .invalidContent("not \(shape)"),
                                         message: "the answer is not \(shape): body \(error.description)"))
        }
    }

    /// Runs `body`, or throws a timeout once `seconds` have passed.
    static func withDeadline<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
                throw AttemptError(failure: .timeout, message: "no complete answer within \(RetryAfter.describe(seconds))")
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }

    static func transportError(_ error: any Error) -> AttemptError {
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else {
            return AttemptError(failure: .connection(error.localizedDescription), message: "the request failed: \(error.localizedDescription)")
        }
        switch nsError.code {
        case NSURLErrorTimedOut:
            return AttemptError(failure: .timeout, message: "timed out")
        case NSURLErrorNetworkConnectionLost:
            return AttemptError(failure: .truncated, message: "the connection was lost before the answer was complete")
        case NSURLErrorUnknown where nsError.localizedDescription.contains("bytes remaining"):
            // libcurl (Linux) reports a body cut short of its Content-Length as an unknown error
            // "transfer closed with N bytes remaining to read".
            return AttemptError(failure: .truncated, message: "the connection was lost before the answer was complete")
        case NSURLErrorCannotConnectToHost:
            return AttemptError(failure: .connection("refused"), message: "cannot connect: the connection was refused")
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed:
            return AttemptError(failure: .connection("unknown host"), message: "cannot connect: the host name was not found")
        case NSURLErrorNotConnectedToInternet:
            return AttemptError(failure: .connection("offline"), message: "cannot connect: not connected to a network")
        default:
            return AttemptError(failure: .connection(nsError.localizedDescription),
                                message: "the request failed: \(nsError.localizedDescription)")
        }
    }

    /// The `error` (Mastodon) or `message` (Bluesky) of an error body, when it has one.
    static func serverMessage(_ body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        let text = (object["message"] as? String) ?? (object["error"] as? String)
        return text.map { String($0.prefix(200)) }
    }
}

/// The module's version, sent as the User-Agent.
public enum TimelineLoading {
    public static let version = "0.1.0"
}
