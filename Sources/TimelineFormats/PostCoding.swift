import Foundation
import TimelineCore
import ValueTree

/// The engine's post object: `{"id": S, "createdAt": T, "author": S?, "text": S?, "height": N?}`.
/// Other fields (`replyTo`, `source`, …) are ignored.
public enum PostCoding {
    public static func post(from value: Value) throws(TimelineFormatError) -> Post {
        guard value.dictionaryValue != nil else {
            throw TimelineFormatError("a post must be an object, found \(value.typeName)", at: value.location)
        }
        let id: String
        if let text = value["id"]?.stringValue {
            id = text
        } else if let number = value["id"]?.integerValue {
            id = number.description
        } else {
            throw TimelineFormatError("a post needs an \"id\" string", at: value["id"]?.location ?? value.location)
        }
        guard let createdText = value["createdAt"]?.stringValue else {
            throw TimelineFormatError("post \(id) needs \"createdAt\" (RFC 3339)", at: value["createdAt"]?.location ?? value.location)
        }
        guard let createdAt = Timestamp.parse(createdText) else {
            throw TimelineFormatError("post \(id): \"createdAt\" \(Value.quote(createdText)) is not an RFC 3339 timestamp",
                                      at: value["createdAt"]?.location)
        }
        var height: Double?
        if let heightValue = value["height"], heightValue != .null {
            guard let number = heightValue.numberValue else {
                throw TimelineFormatError("post \(id): \"height\" must be a number, found \(heightValue.typeName)", at: heightValue.location)
            }
            if let problem = GeometryLimits.problem(withHeight: number) {
                throw TimelineFormatError("post \(id): \"height\" \(problem), found \(heightValue.description)", at: heightValue.location)
            }
            height = number
        }
        return Post(id: id, createdAt: createdAt, author: value["author"]?.stringValue, text: value["text"]?.stringValue, height: height)
    }

    public static func value(of post: Post) -> Value {
        var pairs: [(String, Value)] = [("id", .string(post.id)), ("createdAt", .string(Timestamp.format(post.createdAt)))]
        if let author = post.author { pairs.append(("author", .string(author))) }
        if let text = post.text { pairs.append(("text", .string(text))) }
        if let height = post.height { pairs.append(("height", .real(height))) }
        return .dictionary(pairs)
    }
}
