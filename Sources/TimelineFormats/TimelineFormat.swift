import Foundation
import JSONText
import TimelineCore
import ValueTree

/// The timeline notations `engine restore` reads. See docs/TIMELINE_FORMATS.md for the field
/// mapping.
public enum TimelineFormat: String, CaseIterable, Sendable {
    /// The engine's own JSON: `{"posts": [...], "viewportHeight": N}`.
    case engine
    /// JSON Lines, one post per line (`{"id", "createdAt", "author"?, "text"?, "height"?}`).
    case jsonl
    /// A Mastodon `GET /api/v1/timelines/home` response: an array of Status.
    case mastodon
    /// A Bluesky `app.bsky.feed.getTimeline` response: `{"feed": [...], "cursor"}`.
    case bluesky

    /// The viewport height used when the input does not give one.
    public static let defaultViewportHeight = 800.0

    /// Reads a timeline; `format` is detected when nil.
    public static func read(_ data: Data, format: TimelineFormat? = nil) throws(TimelineFormatError) -> Timeline {
        if format == .jsonl || (format == nil && looksLikeJSONLines(data)) {
            return try readJSONLines(data)
        }
        let root: Value
        do {
            root = try JSONReader().read(data)
        } catch {
            throw TimelineFormatError(error.message, at: error.location)
        }
        let chosen = format ?? detect(root)
        switch chosen {
        case .engine, .jsonl:
            guard let posts = root["posts"]?.arrayValue else {
                throw TimelineFormatError("expected an object with \"posts\" (the engine's timeline format)", at: root.location)
            }
            var decoded: [Post] = []
            decoded.reserveCapacity(posts.count)
            for post in posts { decoded.append(try PostCoding.post(from: post)) }
            let height = root["viewportHeight"]?.numberValue ?? defaultViewportHeight
            if let problem = GeometryLimits.problem(withViewportSize: height) {
                throw TimelineFormatError("viewportHeight \(problem), found \(Value.describe(number: height))", at: root["viewportHeight"]?.location)
            }
            return Timeline(posts: decoded, viewportHeight: height)
        case .mastodon:
            return Timeline(posts: try MastodonTimeline.posts(from: root), viewportHeight: defaultViewportHeight)
        case .bluesky:
            return Timeline(posts: try BlueskyTimeline.posts(from: root), viewportHeight: defaultViewportHeight)
        }
    }

    static func detect(_ root: Value) -> TimelineFormat {
        if root["posts"] != nil { return .engine }
        if root["feed"] != nil { return .bluesky }
        if root.arrayValue != nil { return .mastodon }
        return .engine
    }

    static func looksLikeJSONLines(_ data: Data) -> Bool {
        // More than one line, and the first line is a complete object with an "id".
        guard let newline = data.firstIndex(of: 0x0A) else { return false }
        let first = data[data.startIndex..<newline]
        let rest = data[newline...].contains { ![0x0A, 0x0D, 0x20, 0x09].contains($0) }
        guard rest, let value = try? JSONReader().read(Data(first)) else { return false }
        return value["id"] != nil
    }

    static func readJSONLines(_ data: Data) throws(TimelineFormatError) -> Timeline {
        var posts: [Post] = []
        var lineNumber = 0
        for line in data.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.allSatisfy({ [0x20, 0x09, 0x0D].contains($0) }) { continue }
            let value: Value
            do {
                value = try JSONReader().read(Data(line))
            } catch {
                throw TimelineFormatError(error.message, at: SourceLocation(line: lineNumber, column: error.location.column))
            }
            do {
                posts.append(try PostCoding.post(from: value))
            } catch {
                throw TimelineFormatError(error.message, at: SourceLocation(line: lineNumber, column: error.location?.column))
            }
        }
        return Timeline(posts: posts, viewportHeight: defaultViewportHeight)
    }
}
