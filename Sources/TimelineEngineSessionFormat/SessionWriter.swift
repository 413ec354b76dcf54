import Foundation
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineJSONText
import TimelineEngineValueTree

/// Writes headers and events as lines of the session format, version 1: compact JSON, `type`
/// and `at` first, each line ending in `\n`.
public enum SessionWriter {
    /// The header line.
    public static func line(for header: SessionHeader) -> String {
        var pairs: [(String, Value)] = [
            ("type", .string("session")), ("version", .integer(header.version)), ("id", .string(header.id)),
            ("device", .string(header.device)),
        ]
        if let account = header.account { pairs.append(("account", .string(account))) }
        pairs += [
            ("timeline", .string(header.timeline)), ("feed", .string(header.feed.rawValue)),
            ("viewport", .dictionary([("width", number(header.viewport.width)), ("height", number(header.viewport.height))])),
            ("startedAt", .string(Timestamp.format(header.startedAt))),
        ]
        if header.version >= SessionHeader.cachesVersion { pairs.append(("api", .string(header.api.rawValue))) }
        if header.version >= SessionHeader.cachesVersion, header.api == .bluesky, header.cursors != .timeKeyed {
            pairs.append(("cursors", .string(header.cursors.rawValue)))
        }
        if !header.clockSkew.isEmpty {
            pairs.append(("clockSkew", .dictionary(header.clockSkew.keys.sorted().map { ($0, number(header.clockSkew[$0]!)) })))
        }
        return write(.dictionary(pairs))
    }

    /// An event's line.
    public static func line(for event: SessionEvent) -> String {
        var pairs: [(String, Value)] = [("type", .string(event.typeName)), ("at", .string(Timestamp.format(event.at)))]
        if let device = event.device { pairs.append(("device", .string(device))) }
        switch event.kind {
        case .timeline(let reason, let posts):
            pairs += [("reason", .string(reason.rawValue)), ("posts", .array(posts.map(value(of:))))]
        case .insert(let index, let posts):
            pairs += [("index", .integer(index)), ("posts", .array(posts.map(value(of:))))]
        case .remove(let ids):
            pairs.append(("ids", .array(ids.map { .string($0) })))
        case .update(let posts):
            pairs.append(("posts", .array(posts.map(value(of:)))))
        case .scroll(let offset, let explicit):
            pairs.append(("offset", number(offset)))
            if explicit { pairs.append(("explicit", .bool(true))) }
        case .lifecycle(let state):
            pairs.append(("state", .string(state.rawValue)))
        case .restore(let tag, let expected):
            if let tag { pairs.append(("tag", .string(tag))) }
            var expectedPairs: [(String, Value)] = [("postId", .string(expected.postId))]
            if let viewportY = expected.viewportY { expectedPairs.append(("viewportY", number(viewportY))) }
            if expected.diverged { expectedPairs.append(("diverged", .bool(true))) }
            if let unread = expected.unread { expectedPairs.append(("unread", .integer(unread))) }
            pairs.append(("expected", .dictionary(expectedPairs)))
        case .sync(let from, let to):
            pairs += [("from", .string(from)), ("to", .string(to))]
        case .fetch(let limit):
            pairs.append(("limit", .integer(limit)))
        }
        return write(.dictionary(pairs))
    }

    /// A whole session as text.
    public static func text(of session: RecordedSession) -> String {
        var text = line(for: session.header)
        for event in session.events { text += line(for: event) }
        return text
    }

    /// A post as the format writes it: `{"id","createdAt","author"?,"text"?,"height"?,"boostOf"?}`.
    public static func value(of post: Post) -> Value {
        var pairs: [(String, Value)] = [("id", .string(post.id)), ("createdAt", .string(Timestamp.format(post.createdAt)))]
        if let author = post.author { pairs.append(("author", .string(author))) }
        if let text = post.text { pairs.append(("text", .string(text))) }
        if let height = post.height { pairs.append(("height", number(height))) }
        if let boostOf = post.boostOf { pairs.append(("boostOf", .string(boostOf))) }
        return .dictionary(pairs)
    }

    /// Whole numbers without a fraction, so that lines stay short and exact. A non-finite number
    /// (no recorder writes one: `SessionRecorder.isRecordable`) is written as null, which the
    /// reader reports with its line.
    static func number(_ value: Double) -> Value {
        guard value.isFinite else { return .null }
        if value == value.rounded(), abs(value) < 1e15 { return .integer(Int(value)) }
        return .real(value)
    }

    /// The line of `value`, which the functions above build from strings, booleans, integers
    /// and `number`s only: every one has a JSON form, whatever the event holds.
    private static func write(_ value: Value) -> String {
        do {
            return try JSONWriter(style: .compact).write(value) + "\n"
        } catch {
            preconditionFailure("a session line built from JSON types has no JSON form: \(error)")
        }
    }
}
