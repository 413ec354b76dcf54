import Foundation
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineJSONText
import TimelineEngineValueTree

/// Decodes one line of a session into a header or an event, straight from its bytes.
///
/// Every field is checked against `schemas/recorded-session.schema.json`'s rules; fields the
/// format does not know are collected so that the reader can warn about them once.
struct SessionLineDecoder {
    /// Why a line could not be decoded, and at which byte.
    struct Failure: Error {
        var message: String
        var location: SourceLocation?
    }

    /// What a line holds.
    enum Line {
        case event(SessionEvent, unknownFields: [String])
        case unknownType(String)
    }

    // MARK: Header

    static func header(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> (SessionHeader, unknownFields: [String]) {
        try converting { try decodeHeader(bytes) }
    }

    static func event(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) -> Line {
        try converting { try decodeEvent(bytes) }
    }

    /// A number as written in JSON: `2`, not `2.0`.
    static func describe(_ number: Double) -> String {
        Value.describe(number: number)
    }

    /// Whether `bytes` hold one whole JSON value (to tell a cut-off line from a wrong one).
    static func isCompleteJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var scanner = JSONScanner(bytes)
        do {
            try scanner.skipValue()
            try scanner.end()
            return true
        } catch {
            return false
        }
    }

    private static func converting<T>(_ body: () throws -> T) throws(Failure) -> T {
        do {
            return try body()
        } catch let failure as Failure {
            throw failure
        } catch let error as JSONSyntaxError {
            throw Failure(message: error.message, location: error.location)
        } catch {
            throw Failure(message: "\(error)", location: nil)
        }
    }

    private static func decodeHeader(_ bytes: UnsafeBufferPointer<UInt8>) throws -> (SessionHeader, unknownFields: [String]) {
        var scanner = JSONScanner(bytes)
        do {
            var type: String?
            var version: Double?
            var id: String?
            var device: String?
            var account: String?
            var timeline: String?
            var feed: String?
            var startedAt: Date?
            var viewport: SessionHeader.Viewport?
            var clockSkew: [String: Double] = [:]
            var api: String?
            var cursors: String?
            var unknown: [String] = []
            var seen = Set<String>()
            try scanner.beginObject()
            while let keyBytes = try scanner.nextKey() {
                let key = String(decoding: keyBytes, as: UTF8.self)
                guard seen.insert(key).inserted else { throw Failure(message: "duplicate key \(Value.quote(key))", location: nil) }
                switch key {
                case "type": type = try string(&scanner, key)
                case "version": version = try number(&scanner, key)
                case "id": id = try string(&scanner, key)
                case "device": device = try string(&scanner, key)
                case "account": account = try optionalString(&scanner, key)
                case "timeline": timeline = try string(&scanner, key)
                case "feed": feed = try string(&scanner, key)
                case "startedAt": startedAt = try timestamp(&scanner, key)
                case "viewport": viewport = try self.viewport(&scanner)
                case "clockSkew": clockSkew = try self.clockSkew(&scanner)
                case "api": api = try string(&scanner, key)
                case "cursors": cursors = try string(&scanner, key)
                default:
                    unknown.append(key)
                    try scanner.skipValue()
                }
            }
            try scanner.end()
            guard type == "session" else {
                throw Failure(
                    message: type == nil
                        ? "the first line must be the session header ({\"type\":\"session\",…})"
                        : "the first line must be the session header; found a \(Value.quote(type!)) event", location: nil)
            }
            guard let version else { throw Failure(message: "the header needs \"version\"", location: nil) }
            guard SessionHeader.supportedVersions.contains(where: { Double($0) == version }) else {
                throw Failure(
                    message:
                        "unsupported session format version \(describe(version)); this engine reads versions \(SessionHeader.supportedVersions.dropLast().map(String.init).joined(separator: ", ") + " and \(SessionHeader.supportedVersions.last!)")",
                    location: nil)
            }
            for (name, value) in [("id", id), ("device", device), ("timeline", timeline), ("feed", feed)] where value == nil {
                throw Failure(message: "the header needs \(Value.quote(name))", location: nil)
            }
            guard let viewport else { throw Failure(message: "the header needs \"viewport\"", location: nil) }
            guard let startedAt else { throw Failure(message: "the header needs \"startedAt\"", location: nil) }
            guard let feedValue = SessionHeader.Feed(rawValue: feed!) else {
                throw Failure(message: "\"feed\" must be \"chronological\" or \"algorithmic\", found \(Value.quote(feed!))", location: nil)
            }
            var apiValue = SessionHeader.API.mastodon
            if let api {
                guard let parsed = SessionHeader.API(rawValue: api) else {
                    throw Failure(message: "\"api\" must be \"mastodon\" or \"bluesky\", found \(Value.quote(api))", location: nil)
                }
                apiValue = parsed
            }
            var cursorsValue = SessionHeader.Cursors.timeKeyed
            if let cursors {
                guard let parsed = SessionHeader.Cursors(rawValue: cursors) else {
                    throw Failure(
                        message: "\"cursors\" must be \"time-keyed\", \"opaque\" or \"issued-only\", found \(Value.quote(cursors))", location: nil)
                }
                cursorsValue = parsed
            }
            let header = SessionHeader(
                id: id!, device: device!, account: account, timeline: timeline!, feed: feedValue,
                viewport: viewport, startedAt: startedAt, version: Int(version), clockSkew: clockSkew, api: apiValue,
                cursors: cursorsValue)
            return (header, unknown)
        }
    }

    /// `{"device": seconds, …}`: each skew a finite number of seconds within a year.
    private static func clockSkew(_ scanner: inout JSONScanner) throws -> [String: Double] {
        do {
            guard try scanner.peek() == .object else {
                throw Failure(
                    message: "\"clockSkew\" must be an object of seconds by device {\"laptop\":3600}, found \(scanner.peekTypeName())",
                    location: scanner.location(at: scanner.offset))
            }
            try scanner.beginObject()
            var skews: [String: Double] = [:]
            while let keyBytes = try scanner.nextKey() {
                let device = String(decoding: keyBytes, as: UTF8.self)
                guard !device.isEmpty else { throw Failure(message: "\"clockSkew\" names a device with an empty id", location: nil) }
                guard skews[device] == nil else { throw Failure(message: "duplicate key \(Value.quote("clockSkew.\(device)"))", location: nil) }
                let seconds = try number(&scanner, "clockSkew.\(device)")
                guard abs(seconds) <= SessionHeader.maximumClockSkew else {
                    throw Failure(
                        message:
                            "\(Value.quote("clockSkew.\(device)")) must be within ±\(describe(SessionHeader.maximumClockSkew)) seconds (a year), found \(describe(seconds))",
                        location: nil)
                }
                skews[device] = seconds
            }
            return skews
        }
    }

    private static func viewport(_ scanner: inout JSONScanner) throws -> SessionHeader.Viewport {
        do {
            guard try scanner.peek() == .object else {
                throw Failure(
                    message: "\"viewport\" must be an object {\"width\":N,\"height\":N}, found \(scanner.peekTypeName())",
                    location: scanner.location(at: scanner.offset))
            }
            try scanner.beginObject()
            var width: Double?
            var height: Double?
            while let key = try scanner.nextKey() {
                if key.spells("width") {
                    width = try number(&scanner, "viewport.width")
                } else if key.spells("height") {
                    height = try number(&scanner, "viewport.height")
                } else {
                    try scanner.skipValue()
                }
            }
            guard let width, let height else {
                throw Failure(message: "\"viewport\" needs a \"width\" and a \"height\" greater than 0", location: nil)
            }
            for (name, size) in [("width", width), ("height", height)] {
                if let problem = GeometryLimits.problem(withViewportSize: size) {
                    throw Failure(message: "\"viewport.\(name)\" \(problem), found \(describe(size))", location: nil)
                }
            }
            return SessionHeader.Viewport(width: width, height: height)
        }
    }

    // MARK: Events

    static let eventKeys: [StaticString] = [
        "type", "at", "reason", "posts", "index", "ids", "offset", "state", "tag", "expected",
        "device", "from", "to", "explicit", "limit",
    ]
    /// The number of a known event key (its bit in a presence mask), matched without making a String.
    static func eventKeyNumber(_ key: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let first = key.first else { return nil }
        let candidate: Int
        switch (first, key.count) {
        case (UInt8(ascii: "t"), 4): candidate = 0
        case (UInt8(ascii: "a"), 2): candidate = 1
        case (UInt8(ascii: "r"), 6): candidate = 2
        case (UInt8(ascii: "p"), 5): candidate = 3
        case (UInt8(ascii: "i"), 5): candidate = 4
        case (UInt8(ascii: "i"), 3): candidate = 5
        case (UInt8(ascii: "o"), 6): candidate = 6
        case (UInt8(ascii: "s"), 5): candidate = 7
        case (UInt8(ascii: "t"), 3): candidate = 8
        case (UInt8(ascii: "e"), 8): candidate = key[3] == UInt8(ascii: "l") ? 13 : 9
        case (UInt8(ascii: "d"), 6): candidate = 10
        case (UInt8(ascii: "f"), 4): candidate = 11
        case (UInt8(ascii: "t"), 2): candidate = 12
        case (UInt8(ascii: "l"), 5): candidate = 14
        default: return nil
        }
        return key.spells(eventKeys[candidate]) ? candidate : nil
    }

    static let eventKeyNames = [
        "type", "at", "reason", "posts", "index", "ids", "offset", "state", "tag", "expected", "device", "from", "to",
        "explicit", "limit",
    ]

    private static func decodeEvent(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Line {
        var scanner = JSONScanner(bytes)
        do {
            var type: String?
            var at: Date?
            var reason: String?
            var posts: [Post]?
            var index: Double?
            var ids: [String]?
            var offset: Double?
            var state: String?
            var tag: String?
            var expected: SessionEvent.Expected?
            var device: String?
            var from: String?
            var to: String?
            var explicit = false
            var limit: Double?
            var present: UInt16 = 0
            var unknown: [String] = []
            try scanner.beginObject()
            while let keyBytes = try scanner.nextKey() {
                // Known keys are matched on their bytes; a String is made only for others.
                let known = SessionLineDecoder.eventKeyNumber(keyBytes)
                if let known {
                    guard present & (1 << known) == 0 else {
                        throw Failure(message: "duplicate key \(Value.quote(SessionLineDecoder.eventKeyNames[known]))", location: nil)
                    }
                    present |= 1 << known
                } else {
                    let key = String(decoding: keyBytes, as: UTF8.self)
                    if unknown.contains(key) { throw Failure(message: "duplicate key \(Value.quote(key))", location: nil) }
                    unknown.append(key)
                    try scanner.skipValue()
                    continue
                }
                switch known {
                case 0: type = try string(&scanner, "type")
                case 1: at = try timestamp(&scanner, "at")
                case 2: reason = try string(&scanner, "reason")
                case 3: posts = try self.posts(&scanner, unknown: &unknown)
                case 4: index = try number(&scanner, "index")
                case 5: ids = try stringArray(&scanner, "ids")
                case 6: offset = try number(&scanner, "offset")
                case 7: state = try string(&scanner, "state")
                case 8: tag = try optionalString(&scanner, "tag")
                case 9: expected = try self.expected(&scanner)
                case 10: device = try nonEmptyString(&scanner, "device")
                case 11: from = try nonEmptyString(&scanner, "from")
                case 12: to = try nonEmptyString(&scanner, "to")
                case 13: explicit = try bool(&scanner, "explicit")
                default: limit = try number(&scanner, "limit")
                }
            }
            try scanner.end()
            guard let type else { throw Failure(message: "an event needs \"type\"", location: nil) }
            let fields: UInt16
            let kind: SessionEvent.Kind
            func missing(_ name: String) -> Failure { Failure(message: "a \(type) event needs \(Value.quote(name))", location: nil) }
            switch type {
            case "timeline":
                fields = 0b1100
                let reasonText = (try reason ?? { throw missing("reason") }())
                guard let reason = SessionEvent.TimelineReason(rawValue: reasonText) else {
                    throw Failure(
                        message:
                            "\"reason\" must be one of \(SessionEvent.TimelineReason.allCases.map { Value.quote($0.rawValue) }.joined(separator: ", ")), found \(Value.quote(reasonText))",
                        location: nil)
                }
                kind = .timeline(reason: reason, posts: (try posts ?? { throw missing("posts") }()))
            case "insert":
                fields = 0b11000
                let position = (try index ?? { throw missing("index") }())
                if let problem = GeometryLimits.problem(withIndex: position) {
                    throw Failure(message: "\"index\" \(problem), found \(describe(position))", location: nil)
                }
                kind = .insert(index: Int(position), posts: (try posts ?? { throw missing("posts") }()))
            case "remove":
                fields = 0b100000
                kind = .remove(ids: (try ids ?? { throw missing("ids") }()))
            case "update":
                fields = 0b1000
                kind = .update(posts: (try posts ?? { throw missing("posts") }()))
            case "scroll":
                fields = 0b10_0000_0100_0000
                let offset = (try offset ?? { throw missing("offset") }())
                if let problem = GeometryLimits.problem(withOffset: offset) {
                    throw Failure(message: "\"offset\" \(problem), found \(describe(offset))", location: nil)
                }
                kind = .scroll(offset: offset, explicit: explicit)
            case "lifecycle":
                fields = 0b10000000
                let stateText = (try state ?? { throw missing("state") }())
                guard let lifecycle = SessionEvent.Lifecycle(rawValue: stateText) else {
                    throw Failure(
                        message:
                            "\"state\" must be one of \(SessionEvent.Lifecycle.allCases.map { Value.quote($0.rawValue) }.joined(separator: ", ")), found \(Value.quote(stateText))",
                        location: nil)
                }
                kind = .lifecycle(lifecycle)
            case "restore":
                fields = 0b11_00000000
                kind = .restore(tag: tag, expected: (try expected ?? { throw missing("expected") }()))
            case "sync":
                fields = 0b1_1000_0000_0000
                kind = .sync(from: (try from ?? { throw missing("from") }()), to: (try to ?? { throw missing("to") }()))
            case "fetch":
                fields = 1 << 14
                let count = (try limit ?? { throw missing("limit") }())
                guard count >= 1, count <= 1_000, count == count.rounded() else {
                    throw Failure(message: "\"limit\" must be a whole number from 1 to 1000, found \(describe(count))", location: nil)
                }
                kind = .fetch(limit: Int(count))
            case "session":
                throw Failure(message: "a second session header; only the first line may be one", location: nil)
            default:
                return .unknownType(type)
            }
            let time = (try at ?? { throw missing("at") }())
            // Known fields that belong to other event types are unknown here; `device` belongs to all.
            let foreignBits = present & ~(fields | 0b11 | (1 << 10))
            let foreign = SessionLineDecoder.eventKeyNames.indices.filter { foreignBits & (1 << $0) != 0 }.map {
                SessionLineDecoder.eventKeyNames[$0]
            }
            return .event(SessionEvent(at: time, kind, device: device), unknownFields: unknown + foreign)
        }
    }

    private static func posts(_ scanner: inout JSONScanner, unknown: inout [String]) throws -> [Post] {
        do {
            guard try scanner.peek() == .array else {
                throw Failure(
                    message: "\"posts\" must be an array of posts, found \(scanner.peekTypeName())", location: scanner.location(at: scanner.offset))
            }
            try scanner.beginArray()
            var posts: [Post] = []
            while try scanner.nextElement() {
                posts.append(try post(&scanner, number: posts.count, unknown: &unknown))
            }
            return posts
        }
    }

    private static func post(_ scanner: inout JSONScanner, number: Int, unknown: inout [String]) throws -> Post {
        var found: [String] = []
        do {
            let post = try PostScanner.post(&scanner, path: "posts[\(number)]", integerIds: false) { key in
                found.append("posts[].\(String(decoding: key, as: UTF8.self))")
            }
            for name in found where !unknown.contains(name) { unknown.append(name) }
            return post
        } catch {
            throw Failure(message: error.message, location: error.location)
        }
    }

    private static func expected(_ scanner: inout JSONScanner) throws -> SessionEvent.Expected {
        do {
            guard try scanner.peek() == .object else {
                throw Failure(
                    message: "\"expected\" must be an object {\"postId\":S,\"viewportY\":N?}, found \(scanner.peekTypeName())",
                    location: scanner.location(at: scanner.offset))
            }
            try scanner.beginObject()
            var postId: String?
            var viewportY: Double?
            var diverged = false
            var unread: Int?
            while let key = try scanner.nextKey() {
                if key.spells("postId") {
                    postId = try string(&scanner, "expected.postId")
                } else if key.spells("diverged") {
                    diverged = try bool(&scanner, "expected.diverged")
                } else if key.spells("unread") {
                    let count = try number(&scanner, "expected.unread")
                    guard count >= 0, count <= 1_000_000_000, count == count.rounded() else {
                        throw Failure(
                            message: "\"expected.unread\" must be a whole number from 0 to 1000000000, found \(describe(count))", location: nil)
                    }
                    unread = Int(count)
                } else if key.spells("viewportY") {
                    viewportY = scanner.null() ? nil : try number(&scanner, "expected.viewportY")
                    if let viewportY, let problem = GeometryLimits.problem(withOffset: viewportY) {
                        throw Failure(message: "\"expected.viewportY\" \(problem), found \(describe(viewportY))", location: nil)
                    }
                } else {
                    try scanner.skipValue()
                }
            }
            guard let postId else { throw Failure(message: "\"expected\" needs \"postId\"", location: nil) }
            return SessionEvent.Expected(postId: postId, viewportY: viewportY, diverged: diverged, unread: unread)
        }
    }

    // MARK: Typed fields

    private static func mismatch(_ scanner: inout JSONScanner, _ key: @autoclosure () -> String, _ wanted: String) -> Failure {
        Failure(message: "\(Value.quote(key())) must be \(wanted), found \(scanner.peekTypeName())", location: scanner.location(at: scanner.offset))
    }

    private static func string(_ scanner: inout JSONScanner, _ key: @autoclosure () -> String) throws -> String {
        do {
            guard try scanner.peek() == .string else { throw mismatch(&scanner, key(), "a string") }
            return try scanner.string()
        }
    }

    /// A device id: a string of at least one character.
    private static func nonEmptyString(_ scanner: inout JSONScanner, _ key: @autoclosure () -> String) throws -> String {
        let location = scanner.location(at: scanner.offset)
        let text = try string(&scanner, key())
        guard !text.isEmpty else { throw Failure(message: "\(Value.quote(key())) must not be empty", location: location) }
        return text
    }

    private static func optionalString(_ scanner: inout JSONScanner, _ key: @autoclosure () -> String) throws -> String? {
        scanner.null() ? nil : try string(&scanner, key())
    }

    private static func bool(_ scanner: inout JSONScanner, _ key: @autoclosure () -> String) throws -> Bool {
        do {
            guard try scanner.peek() == .bool else { throw mismatch(&scanner, key(), "true or false") }
            return try scanner.bool()
        }
    }

    private static func number(_ scanner: inout JSONScanner, _ key: @autoclosure () -> String) throws -> Double {
        do {
            guard try scanner.peek() == .number else { throw mismatch(&scanner, key(), "a number") }
            return try scanner.number()
        }
    }

    private static func timestamp(_ scanner: inout JSONScanner, _ key: @autoclosure () -> String) throws -> Date {
        do {
            guard try scanner.peek() == .string else { throw mismatch(&scanner, key(), "an RFC 3339 timestamp string") }
            let start = scanner.offset
            let bytes = try scanner.stringBytes()
            guard let date = Timestamp.parse(bytes: bytes) else {
                throw Failure(
                    message: "\(Value.quote(key())) is not an RFC 3339 timestamp: \(Value.quote(String(decoding: bytes, as: UTF8.self)))",
                    location: scanner.location(at: start))
            }
            return date
        }
    }

    private static func stringArray(_ scanner: inout JSONScanner, _ key: @autoclosure () -> String) throws -> [String] {
        do {
            guard try scanner.peek() == .array else { throw mismatch(&scanner, key(), "an array of strings") }
            try scanner.beginArray()
            var values: [String] = []
            while try scanner.nextElement() { values.append(try string(&scanner, "\(key())[\(values.count)]")) }
            return values
        }
    }
}
