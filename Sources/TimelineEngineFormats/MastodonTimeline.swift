import Foundation
import TimelineEngineCore
import TimelineEngineValueTree

/// A Mastodon `GET /api/v1/timelines/home` response (an array of Status) as posts.
///
/// | post | Status |
/// |---|---|
/// | `id` | `id` |
/// | `createdAt` | `created_at` |
/// | `author` | `account.acct` |
/// | `text` | `content` as plain text (tags removed, `<br>` and paragraphs as line breaks, entities decoded); for a boost, the boosted status's content |
///
/// A boost is its own entry: its own id and time, the booster as author, the original's text,
/// and the original's id as `boostOf` (`reblog.id`).
public enum MastodonTimeline {
    public static func posts(from root: Value) throws(TimelineFormatError) -> [Post] {
        guard let statuses = root.arrayValue else {
            throw TimelineFormatError("expected an array of Mastodon statuses", at: root.location)
        }
        var posts: [Post] = []
        for status in statuses { posts.append(try post(from: status)) }
        return posts
    }

    /// One Status (`GET /api/v1/statuses/:id`) as a post.
    public static func post(from status: Value) throws(TimelineFormatError) -> Post {
        guard status.dictionaryValue != nil, let id = status["id"]?.stringValue else {
            throw TimelineFormatError("a status needs an \"id\"", at: status.location)
        }
        guard let created = status["created_at"]?.stringValue, let createdAt = Timestamp.parse(created) else {
            throw TimelineFormatError("status \(id) needs \"created_at\" as RFC 3339", at: status["created_at"]?.location ?? status.location)
        }
        let reblog = status["reblog"].flatMap { $0 == .null ? nil : $0 }
        let source = reblog ?? status
        return Post(
            id: id, createdAt: createdAt, author: status["account"]?["acct"]?.stringValue,
            text: source["content"]?.stringValue.map(HTMLText.plain), boostOf: reblog?["id"]?.stringValue)
    }
}

/// Plain text from the small HTML subset Mastodon sends.
enum HTMLText {
    static func plain(_ html: String) -> String {
        var text = ""
        var index = html.startIndex
        while index < html.endIndex {
            let character = html[index]
            if character == "<", let close = html[index...].firstIndex(of: ">") {
                let tag = html[html.index(after: index)..<close].lowercased()
                if tag.hasPrefix("br") || (tag.hasPrefix("/p") && html[close...].dropFirst().hasPrefix("<p")) {
                    text += "\n"
                }
                index = html.index(after: close)
                continue
            }
            if character == "&", let semicolon = html[index...].prefix(10).firstIndex(of: ";") {
                let entity = String(html[html.index(after: index)..<semicolon])
                if let decoded = decode(entity) {
                    text.append(decoded)
                    index = html.index(after: semicolon)
                    continue
                }
            }
            text.append(character)
            index = html.index(after: index)
        }
        return text
    }

    static func decode(_ entity: String) -> Character? {
        switch entity {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        case "nbsp": return "\u{A0}"
        default:
            guard entity.hasPrefix("#") else { return nil }
            let digits = entity.dropFirst()
            let code = digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
            return code.flatMap(Unicode.Scalar.init).map(Character.init)
        }
    }
}
