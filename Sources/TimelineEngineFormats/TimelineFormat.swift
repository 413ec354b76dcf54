import Foundation
import TimelineEngineCore
import TimelineEngineJSONText
import TimelineEngineValueTree

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
    ///
    /// JSON Lines and the engine's JSON decode their posts straight from the bytes
    /// (`PostScanner`); Mastodon and Bluesky answers are read into a value tree first.
    public static func read(_ data: Data, format: TimelineFormat? = nil) throws(TimelineFormatError) -> Timeline {
        if format == .jsonl || (format == nil && looksLikeJSONLines(data)) {
            return try readJSONLines(data)
        }
        if format == .engine || (format == nil && hasTopLevelPosts(data)) {
            return try readEngineJSON(data)
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
            // An object with "posts" went to `readEngineJSON` above: this one has none.
            throw TimelineFormatError("expected an object with \"posts\" (the engine's timeline format)", at: root.location)
        case .mastodon:
            return Timeline(posts: try MastodonTimeline.posts(from: root), viewportHeight: defaultViewportHeight)
        case .bluesky:
            return Timeline(posts: try BlueskyTimeline.posts(from: root), viewportHeight: defaultViewportHeight)
        }
    }

    /// An API answer's JSON as a value tree, for the readers of one API shape
    /// (`MastodonTimeline`, `BlueskyTimeline`).
    public static func json(_ data: Data) throws(TimelineFormatError) -> Value {
        do {
            return try JSONReader().read(data)
        } catch {
            throw TimelineFormatError(error.message, at: error.location)
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
        let result = data.withUnsafeBytes { raw -> Result<[Post], TimelineFormatError> in
            let bytes = raw.bindMemory(to: UInt8.self)
            var posts: [Post] = []
            var lineStart = 0
            var lineNumber = 0
            while lineStart < bytes.count {
                lineNumber += 1
                var end = lineStart
                if let base = bytes.baseAddress, let found = memchr(base + lineStart, 0x0A, bytes.count - lineStart) {
                    end = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                } else {
                    end = bytes.count
                }
                let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<end])
                lineStart = end + 1
                if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
                var scanner = JSONScanner(line, firstLine: lineNumber)
                do throws(TimelineFormatError) {
                    try TimelineFormatError.scanning(fallback: SourceLocation(line: lineNumber)) {
                        posts.append(try PostScanner.post(&scanner, path: ""))
                        try scanner.end()
                    }
                } catch {
                    return .failure(error)
                }
            }
            return .success(posts)
        }
        return Timeline(posts: try result.get(), viewportHeight: defaultViewportHeight)
    }

    /// True when the document is an object with a top-level `"posts"`: the engine's format.
    static func hasTopLevelPosts(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var scanner = JSONScanner(raw.bindMemory(to: UInt8.self))
            guard (try? scanner.peek()) == .object, (try? scanner.beginObject()) != nil else { return false }
            while let key = try? scanner.nextKey() {
                if key.spells("posts") { return true }
                guard (try? scanner.skipValue()) != nil else { return false }
            }
            return false
        }
    }

    /// The engine's JSON, `{"posts": [...], "viewportHeight": N}`, decoded straight from the bytes.
    static func readEngineJSON(_ data: Data) throws(TimelineFormatError) -> Timeline {
        let result = data.withUnsafeBytes { raw -> Result<Timeline, TimelineFormatError> in
            var scanner = JSONScanner(raw.bindMemory(to: UInt8.self))
            return Result { () throws(TimelineFormatError) in
                try TimelineFormatError.scanning {
                    guard try scanner.peek() == .object else {
                        throw TimelineFormatError(
                            "expected an object with \"posts\" (the engine's timeline format)", at: scanner.location(at: scanner.offset))
                    }
                    let start = scanner.offset
                    try scanner.beginObject()
                    var posts: [Post]?
                    var height = defaultViewportHeight
                    while let key = try scanner.nextKey() {
                        if key.spells("posts") {
                            guard try scanner.peek() == .array else {
                                throw TimelineFormatError(
                                    "\"posts\" must be an array of posts, found \(scanner.peekTypeName())", at: scanner.location(at: scanner.offset))
                            }
                            try scanner.beginArray()
                            var decoded: [Post] = []
                            while try scanner.nextElement() { decoded.append(try PostScanner.post(&scanner, path: "posts[\(decoded.count)]")) }
                            posts = decoded
                        } else if key.spells("viewportHeight") {
                            let valueStart = scanner.offset
                            guard try scanner.peek() == .number else {
                                throw TimelineFormatError(
                                    "viewportHeight must be a number, found \(scanner.peekTypeName())", at: scanner.location(at: valueStart))
                            }
                            height = try scanner.number()
                            if let problem = GeometryLimits.problem(withViewportSize: height) {
                                throw TimelineFormatError(
                                    "viewportHeight \(problem), found \(Value.describe(number: height))", at: scanner.location(at: valueStart))
                            }
                        } else {
                            try scanner.skipValue()
                        }
                    }
                    try scanner.end()
                    guard let posts else {
                        throw TimelineFormatError("expected an object with \"posts\" (the engine's timeline format)", at: scanner.location(at: start))
                    }
                    return Timeline(posts: posts, viewportHeight: height)
                }
            }
        }
        return try result.get()
    }
}
