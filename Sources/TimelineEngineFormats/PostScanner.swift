import Foundation
import TimelineEngineCore
import TimelineEngineJSONText
import TimelineEngineValueTree

/// Decodes the engine's post object, `{"id", "createdAt", "author"?, "text"?, "height"?, "boostOf"?}`, straight
/// from JSON bytes with `JSONScanner`, without building a value tree first, which makes reading
/// a large timeline several times faster. JSON Lines timelines, the engine's JSON timelines and
/// recorded sessions all decode their posts here; `PostCoding` writes them.
public enum PostScanner {
    /// Decodes the post at the scanner's position. `path` names it in messages
    /// (`posts[3]` gives `"posts[3].height" must be …`; empty gives `"height" must be …`).
    /// `integerIds` accepts `"id": 42` as the id "42". Fields other than the five are skipped,
    /// and passed to `unknown` when it is given.
    public static func post(
        _ scanner: inout JSONScanner, path: String, integerIds: Bool = true,
        unknown: ((UnsafeBufferPointer<UInt8>) -> Void)? = nil
    ) throws(TimelineFormatError) -> Post {
        var id: String?
        // On a line of its own a post is named by its id, once known: `post 42: "height" …`.
        func field(_ name: String) -> String {
            path.isEmpty ? (id.map { "post \($0): " } ?? "") + Value.quote(name) : Value.quote("\(path).\(name)")
        }
        return try TimelineFormatError.scanning {
            let start = scanner.offset
            guard try scanner.peek() == .object else {
                throw TimelineFormatError(
                    "\(path.isEmpty ? "a post" : path) must be an object, found \(scanner.peekTypeName())",
                    at: scanner.location(at: scanner.offset))
            }
            try scanner.beginObject()
            var createdAt: Date?
            var author: String?
            var text: String?
            var height: Double?
            var boostOf: String?
            var seen: UInt8 = 0
            while let key = try scanner.nextKey() {
                let keyStart = scanner.offset
                let bit: UInt8 =
                    key.spells("id")
                    ? 1
                    : key.spells("createdAt")
                        ? 2
                        : key.spells("text")
                            ? 4
                            : key.spells("author") ? 8 : key.spells("height") ? 16 : key.spells("boostOf") ? 32 : 0
                if bit != 0 {
                    if seen & bit != 0 {
                        throw TimelineFormatError(
                            "duplicate key \(Value.quote(String(decoding: key, as: UTF8.self)))", at: scanner.location(at: keyStart))
                    }
                    seen |= bit
                }
                switch bit {
                case 1:
                    let kind = try scanner.peek()
                    if kind == .string {
                        id = try scanner.string()
                    } else if integerIds, kind == .number, case let number = try scanner.number(), number == number.rounded(), abs(number) < 9e15 {
                        id = Value.describe(number: number)
                    } else {
                        throw TimelineFormatError(
                            "\(field("id")) must be a string, found \(scanner.peekTypeName())", at: scanner.location(at: keyStart))
                    }
                case 2:
                    guard try scanner.peek() == .string else {
                        throw TimelineFormatError(
                            "\(field("createdAt")) must be an RFC 3339 timestamp string, found \(scanner.peekTypeName())",
                            at: scanner.location(at: scanner.offset))
                    }
                    let valueStart = scanner.offset
                    let bytes = try scanner.stringBytes()
                    guard let date = Timestamp.parse(bytes: bytes) else {
                        throw TimelineFormatError(
                            "\(field("createdAt")) is not an RFC 3339 timestamp: \(Value.quote(String(decoding: bytes, as: UTF8.self)))",
                            at: scanner.location(at: valueStart))
                    }
                    createdAt = date
                case 4, 8, 32:
                    if scanner.null() { continue }
                    guard try scanner.peek() == .string else {
                        throw TimelineFormatError(
                            "\(field(bit == 4 ? "text" : bit == 8 ? "author" : "boostOf")) must be a string, found \(scanner.peekTypeName())",
                            at: scanner.location(at: scanner.offset))
                    }
                    switch bit {
                    case 4: text = try scanner.string()
                    case 8: author = try scanner.string()
                    default: boostOf = try scanner.string()
                    }
                case 16:
                    if scanner.null() { continue }
                    let valueStart = scanner.offset
                    guard try scanner.peek() == .number else {
                        throw TimelineFormatError(
                            "\(field("height")) must be a number, found \(scanner.peekTypeName())", at: scanner.location(at: valueStart))
                    }
                    let value = try scanner.number()
                    if let problem = GeometryLimits.problem(withHeight: value) {
                        throw TimelineFormatError(
                            "\(field("height")) \(problem), found \(Value.describe(number: value))", at: scanner.location(at: valueStart))
                    }
                    height = value
                default:
                    unknown?(key)
                    try scanner.skipValue()
                }
            }
            guard let id else { throw TimelineFormatError("\(path.isEmpty ? "a post" : path) needs an \"id\"", at: scanner.location(at: start)) }
            guard let createdAt else { throw TimelineFormatError("post \(id) needs \"createdAt\" (RFC 3339)", at: scanner.location(at: start)) }
            return Post(id: id, createdAt: createdAt, author: author, text: text, height: height, boostOf: boostOf)
        }
    }
}
