import Foundation
import TimelineEngineCore
import TimelineEngineValueTree

/// Writes the engine's post object: `{"id": S, "createdAt": T, "author": S?, "text": S?, "height": N?, "boostOf": S?}`.
/// `PostScanner` reads it.
public enum PostCoding {
    /// The post as the engine's post object, in that key order; a post without an author,
    /// text, height or boosted post leaves the key out.
    public static func value(of post: Post) -> Value {
        var pairs: [(String, Value)] = [("id", .string(post.id)), ("createdAt", .string(Timestamp.format(post.createdAt)))]
        if let author = post.author { pairs.append(("author", .string(author))) }
        if let text = post.text { pairs.append(("text", .string(text))) }
        if let height = post.height { pairs.append(("height", .real(height))) }
        if let boostOf = post.boostOf { pairs.append(("boostOf", .string(boostOf))) }
        return .dictionary(pairs)
    }
}
