import Foundation
import TimelineEngineCore
import TimelineEngineHTTPExchange
import TimelineEngineSupport

/// What a Mastodon server last said of its rate limit (`X-RateLimit-Remaining`,
/// `X-RateLimit-Reset`): while fewer than `reserve` requests remain, polls wait for the reset.
final class RateLimitWindow: Sendable {
    private let state = Locked<(remaining: Int?, reset: Date?)>((nil, nil))
    /// Requests kept for saves when polls stop.
    static let reserve = 10

    /// Notes an answer's rate-limit headers.
    func note(_ answer: HTTPExchangeAnswer, now: Date) {
        guard let remaining = answer.header("X-RateLimit-Remaining").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else { return }
        let reset = answer.header("X-RateLimit-Reset").flatMap(MastodonMarkersTransport.parseDate)
        state.withLock { $0 = (remaining, reset) }
    }

    /// Seconds a poll must wait at `now`: until the reset while few requests remain, else 0
    /// (at most 5 minutes, Mastodon's window).
    func wait(now: Date) -> Double {
        state.withLock { state in
            guard let remaining = state.remaining, remaining < Self.reserve, let reset = state.reset else { return 0 }
            return min(300, max(0, reset.timeIntervalSince(now)))
        }
    }
}
