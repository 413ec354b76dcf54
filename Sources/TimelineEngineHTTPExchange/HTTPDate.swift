import Foundation

/// HTTP-dates (RFC 9110 §5.6.7), as `Date` and `Retry-After` headers carry them:
/// `Sun, 06 Nov 1994 08:49:37 GMT`.
public enum HTTPDate {
    /// The date `text` names; nil when it is not an IMF-fixdate.
    public static func parse(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text.trimmingCharacters(in: .whitespaces))
    }
}
