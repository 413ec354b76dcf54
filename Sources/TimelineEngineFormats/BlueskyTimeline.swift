import Foundation
import TimelineEngineCore
import TimelineEngineValueTree

/// A Bluesky `app.bsky.feed.getTimeline` response as posts.
///
/// | post | feed item |
/// |---|---|
/// | `id` | `post.uri`; for a repost, `post.uri` + `#repost-by:` + `reason.by.did` (each repost is its own entry) |
/// | `createdAt` | where the AppView sorts it: the earlier of `post.record.createdAt` and `post.indexedAt` (`feedTime`); for a repost, `reason.indexedAt` (when it was reposted) |
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
            let time = isRepost ? reason?["indexedAt"]?.stringValue.flatMap(Timestamp.parse) : feedTime(of: post)
            guard let createdAt = time else {
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
            guard let createdAt = feedTime(of: view) else {
                throw TimelineFormatError("post \(uri) needs \"record.createdAt\" as RFC 3339", at: view.location)
            }
            posts.append(
                Post(id: uri, createdAt: createdAt, author: view["author"]?["handle"]?.stringValue, text: view["record"]?["text"]?.stringValue))
        }
        return posts
    }

    /// Where a post view sits in a feed: the earlier of `record.createdAt` (the author's clock)
    /// and `indexedAt` (the AppView's), as the reference AppView sorts its feed (a feed item's
    /// `sortAt`), so that a post written on a clock ahead is placed, and asked for by time, where
    /// the server puts it. Nil when `record.createdAt` is not RFC 3339, or is missing and so is
    /// `indexedAt`.
    static func feedTime(of view: Value) -> Date? {
        let indexed = view["indexedAt"]?.stringValue.flatMap(Timestamp.parse)
        guard let writtenText = view["record"]?["createdAt"]?.stringValue else { return indexed }
        guard let written = Timestamp.parse(writtenText) else { return nil }
        return indexed.map { min($0, written) } ?? written
    }
}
