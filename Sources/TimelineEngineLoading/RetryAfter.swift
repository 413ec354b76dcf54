import Foundation
import TimelineEngineHTTPExchange

/// How long a server asked to wait: `Retry-After` (seconds or an HTTP date), or on a 429 the
/// rate-limit reset headers Mastodon (`X-RateLimit-Reset`, a timestamp) and Bluesky
/// (`RateLimit-Reset`, Unix seconds) send.
///
/// Every wait a server sends is bounded, to 0 … `longestWait`: a server that asks for more (or
/// for `inf`, or for 2⁶³ seconds) is asking never, and the engine then waits that year at most,
/// which no network policy does.
enum RetryAfter {
    /// The longest wait the engine takes from a server: a year.
    static let longestWait: Double = 366 * 86_400

    /// `seconds` within 0 … `longestWait`; nil for NaN.
    static func bounded(_ seconds: Double) -> Double? {
        seconds.isNaN ? nil : min(longestWait, max(0, seconds))
    }

    static func seconds(from response: HTTPExchangeAnswer, now: Date = Date()) -> Double? {
        if let value = response.header("Retry-After") { return parse(value, now: now) }
        guard response.status == 429 else { return nil }
        if let value = response.header("X-RateLimit-Reset"),
            let reset = ISO8601DateFormatter.withFractions.date(from: value) ?? ISO8601DateFormatter().date(from: value)
        {
            return bounded(reset.timeIntervalSince(now))
        }
        if let value = response.header("RateLimit-Reset"), let epoch = Double(value) {
            return bounded(epoch - now.timeIntervalSince1970)
        }
        return nil
    }

    /// When an answer says the rate limit is spent (`X-RateLimit-Remaining: 0` with
    /// `X-RateLimit-Reset` on Mastodon, `RateLimit-Remaining: 0` with `RateLimit-Reset` on
    /// Bluesky): the time it resets, or nil while requests remain.
    /// The reset is bounded to now … now + `longestWait`.
    static func spentUntil(from response: HTTPExchangeAnswer, now: Date = Date()) -> Date? {
        guard
            let remaining = (response.header("X-RateLimit-Remaining") ?? response.header("RateLimit-Remaining"))
                .flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), remaining <= 0
        else { return nil }
        var wait: Double?
        if let value = response.header("X-RateLimit-Reset"),
            let reset = ISO8601DateFormatter.withFractions.date(from: value) ?? ISO8601DateFormatter().date(from: value)
        {
            wait = bounded(reset.timeIntervalSince(now))
        } else if let value = response.header("RateLimit-Reset"), let epoch = Double(value) {
            wait = bounded(epoch - now.timeIntervalSince1970)
        }
        return wait.map { now.addingTimeInterval($0) }
    }

    /// `Retry-After`: delay-seconds, or an HTTP-date (RFC 9110 §10.2.3).
    static func parse(_ value: String, now: Date) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 { return bounded(Double(seconds)) }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        return bounded(date.timeIntervalSince(now))
    }

    static func describe(_ seconds: Double) -> String {
        guard let seconds = bounded(seconds) else { return "an unknown time" }
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.2f s", seconds)
    }
}

extension ISO8601DateFormatter {
    static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
