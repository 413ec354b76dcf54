import Foundation
import HTTPExchange

/// How long a server asked to wait: `Retry-After` (seconds or an HTTP date), or on a 429 the
/// rate-limit reset headers Mastodon (`X-RateLimit-Reset`, a timestamp) and Bluesky
/// (`RateLimit-Reset`, Unix seconds) send.
enum RetryAfter {
    static func seconds(from response: HTTPExchangeAnswer, now: Date = Date()) -> Double? {
        if let value = response.header("Retry-After") { return parse(value, now: now) }
        guard response.status == 429 else { return nil }
        if let value = response.header("X-RateLimit-Reset"),
           let reset = ISO8601DateFormatter.withFractions.date(from: value) ?? ISO8601DateFormatter().date(from: value) {
            return max(0, reset.timeIntervalSince(now))
        }
        if let value = response.header("RateLimit-Reset"), let epoch = Double(value) {
            return max(0, epoch - now.timeIntervalSince1970)
        }
        return nil
    }

    /// When an answer says the rate limit is spent (`X-RateLimit-Remaining: 0` with
    /// `X-RateLimit-Reset` on Mastodon, `RateLimit-Remaining: 0` with `RateLimit-Reset` on
    /// Bluesky): the time it resets, or nil while requests remain.
    static func spentUntil(from response: HTTPExchangeAnswer) -> Date? {
        guard let remaining = (response.header("X-RateLimit-Remaining") ?? response.header("RateLimit-Remaining"))
            .flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), remaining <= 0 else { return nil }
        if let value = response.header("X-RateLimit-Reset"),
           let reset = ISO8601DateFormatter.withFractions.date(from: value) ?? ISO8601DateFormatter().date(from: value) {
            return reset
        }
        if let value = response.header("RateLimit-Reset"), let epoch = Double(value) { return Date(timeIntervalSince1970: epoch) }
        return nil
    }

    /// `Retry-After`: delay-seconds, or an HTTP-date (RFC 9110 §10.2.3).
    static func parse(_ value: String, now: Date) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 { return Double(seconds) }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    static func describe(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.2f s", seconds)
    }
}

extension ISO8601DateFormatter {
    static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
