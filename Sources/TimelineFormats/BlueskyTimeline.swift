import Foundation
import TimelineCore
import ValueTree

/// A Bluesky `app.bsky.feed.getTimeline` response as posts.
///
/// | post | feed item |
/// |---|---|
/// | `id` | `post.uri`; for a repost, `post.uri` + `#repost-by:` + `reason.by.did` (each repost is its own entry) |
/// | `createdAt` | `post.record.createdAt`; for a repost, `reason.indexedAt` (when it was reposted) |
/// | `author` | `post.author.handle`; for a repost, `reason.by.handle` |
/// | `text` | `post.record.text` |
/// | `boostOf` | for a repost, `post.uri` (the post reposted) |
public enum BlueskyTimeline {
    public static func posts(from root: Value) throws(TimelineFormatError) -> [Post] {
        guard let feed = root["feed"]?.arrayValue else {
            throw TimelineFormatError("expected an object with \"feed\" (app.bsky.feed.getTimeline)", at: root.location)
        }
        var posts: [Post] = []
        for item in feed {
            guard let post = item["post"], let uri = post["uri"]?.stringValue else {
                throw TimelineFormatError("a feed item needs \"post.uri\"", at: item.location)
            }
            let reason = item["reason"]
            let isRepost = reason?["$type"]?.stringValue == "app.bsky.feed.defs#reasonRepost"
            let timeText = isRepost ? reason?["indexedAt"]?.stringValue : post["record"]?["createdAt"]?.stringValue ?? post["indexedAt"]?.stringValue
            guard let timeText, let createdAt = Timestamp.parse(timeText) else {
                throw TimelineFormatError("post \(uri) needs \"record.createdAt\" as RFC 3339", at: post.location)
            }
            var id = uri
            var author = post["author"]?["handle"]?.stringValue
            if isRepost {
                let by = reason?["by"]?["did"]?.stringValue ?? reason?["by"]?["handle"]?.stringValue ?? "unknown"
                id += "#repost-by:" + by
                author = reason?["by"]?["handle"]?.stringValue ?? author
            }
            posts.append(
                Post(id: id, createdAt: createdAt, author: author, text: post["record"]?["text"]?.stringValue, boostOf: isRepost ? uri : nil))
        }
        return posts
    }

    /// The `cursor` of a `getTimeline` answer: where the next page continues (nil at the end).
    public static func cursor(from root: Value) -> String? {
        root["cursor"]?.stringValue
    }

    /// The posts of an `app.bsky.feed.getPosts` answer (`{"posts": [postView]}`); a post that no
    /// longer exists is absent from it.
    public static func lookedUp(from root: Value) throws(TimelineFormatError) -> [Post] {
        guard let views = root["posts"]?.arrayValue else {
            throw TimelineFormatError("expected an object with \"posts\" (app.bsky.feed.getPosts)", at: root.location)
        }
        var posts: [Post] = []
        for view in views {
            guard let uri = view["uri"]?.stringValue else { throw TimelineFormatError("a post needs \"uri\"", at: view.location) }
            guard let timeText = view["record"]?["createdAt"]?.stringValue ?? view["indexedAt"]?.stringValue,
                let createdAt = Timestamp.parse(timeText)
            else {
                throw TimelineFormatError("post \(uri) needs \"record.createdAt\" as RFC 3339", at: view.location)
            }
            posts.append(
                Post(id: uri, createdAt: createdAt, author: view["author"]?["handle"]?.stringValue, text: view["record"]?["text"]?.stringValue))
        }
        return posts
    }
}
