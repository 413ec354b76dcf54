import Foundation

/// An AT Protocol timestamp identifier (TID): the record key of a Bluesky post, which holds the
/// time the post was made (atproto.com/specs/tid). Thirteen characters of base32-sortable
/// (`234567abcdefghijklmnopqrstuvwxyz`) encode a 64-bit integer whose top bit is 0, whose next 53
/// bits are microseconds since 1970, and whose last 10 are a clock id. A position that is a
/// post id alone (a synced marker) then still says when its post was made.
public enum TimestampIdentifier {
    private static let alphabet = Array("234567abcdefghijklmnopqrstuvwxyz".utf8)

    /// When the post `id` was made, read from its record key: `id` is a post's `at://` URI
    /// (`at://DID/app.bsky.feed.post/TID`) or a TID alone; nil for anything else (a Mastodon id,
    /// a record key that is not a TID).
    public static func creationTime(ofPostId id: String) -> Date? {
        var key = Substring(id)
        if id.hasPrefix("at://") {
            let parts = id.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 5, parts[3] == "app.bsky.feed.post" else { return nil }
            key = parts[4]
        }
        guard let microseconds = microseconds(of: key) else { return nil }
        return Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }

    /// The microseconds since 1970 a TID holds, or nil when `key` is not one.
    public static func microseconds(of key: Substring) -> UInt64? {
        let bytes = Array(key.utf8)
        guard bytes.count == 13 else { return nil }
        var value: UInt64 = 0
        for (position, byte) in bytes.enumerated() {
            guard let digit = alphabet.firstIndex(of: byte) else { return nil }
            // 13 digits carry 65 bits: the first is one of 2…j, so that the two highest are 0.
            if position == 0, digit >= 16 { return nil }
            value = value << 5 | UInt64(digit)
        }
        return value >> 10
    }
}
