import Foundation
import TimelineEngineCore
import TimelineEngineJSONText
import TimelineEngineValueTree

/// `PositionSnapshot` and `Restoration` as JSON, under the names of the contract.
public enum SnapshotCoding {
    public static func read(_ data: Data) throws(TimelineFormatError) -> PositionSnapshot {
        let root: Value
        do {
            root = try JSONReader().read(data)
        } catch {
            throw TimelineFormatError(error.message, at: error.location)
        }
        return try snapshot(from: root)
    }

    public static func snapshot(from root: Value) throws(TimelineFormatError) -> PositionSnapshot {
        guard root.dictionaryValue != nil else {
            throw TimelineFormatError("a position must be an object, found \(root.typeName)", at: root.location)
        }
        guard let postId = root["postId"]?.stringValue else {
            throw TimelineFormatError("a position needs \"postId\"", at: root["postId"]?.location ?? root.location)
        }
        /// A number in its range: `limit` says why a value is out of it.
        func number(_ key: String, _ limit: (Double) -> String?) throws(TimelineFormatError) -> Double? {
            guard let value = root[key], value != .null else { return nil }
            guard let number = value.numberValue else {
                throw TimelineFormatError("\"\(key)\" must be a number, found \(value.typeName)", at: value.location)
            }
            if let problem = limit(number) {
                throw TimelineFormatError("\"\(key)\" \(problem), found \(value.description)", at: value.location)
            }
            return number
        }
        func date(_ key: String) throws(TimelineFormatError) -> Date? {
            guard let value = root[key], value != .null else { return nil }
            guard let text = value.stringValue, let date = Timestamp.parse(text) else {
                throw TimelineFormatError("\"\(key)\" must be an RFC 3339 timestamp", at: value.location)
            }
            return date
        }
        func ids(_ side: String) -> [String] {
            root["neighbors"]?[side]?.arrayValue?.compactMap(\.stringValue) ?? []
        }
        return PositionSnapshot(
            postId: postId, postCreatedAt: try date("postCreatedAt"), viewportY: try number("viewportY", GeometryLimits.problem(withOffset:)) ?? 0,
            contentOffset: try number("contentOffset", GeometryLimits.problem(withOffset:)) ?? 0,
            viewportHeight: try number("viewportHeight", GeometryLimits.problem(withViewportSize:)),
            index: try number("index", GeometryLimits.problem(withIndex:)).map { Int($0) },
            timelineCount: try number("timelineCount", GeometryLimits.problem(withIndex:)).map { Int($0) },
            neighbors: .init(above: ids("above"), below: ids("below")), text: root["text"]?.stringValue,
            author: root["author"]?.stringValue, savedAt: try date("savedAt"), deviceId: root["deviceId"]?.stringValue)
    }

    public static func value(of snapshot: PositionSnapshot) -> Value {
        var pairs: [(String, Value)] = [("postId", .string(snapshot.postId))]
        if let created = snapshot.postCreatedAt { pairs.append(("postCreatedAt", .string(Timestamp.format(created)))) }
        pairs.append(("viewportY", .real(snapshot.viewportY)))
        pairs.append(("contentOffset", .real(snapshot.contentOffset)))
        if let height = snapshot.viewportHeight { pairs.append(("viewportHeight", .real(height))) }
        if let index = snapshot.index { pairs.append(("index", .integer(index))) }
        if let count = snapshot.timelineCount { pairs.append(("timelineCount", .integer(count))) }
        pairs.append(
            (
                "neighbors",
                .dictionary([
                    ("above", .array(snapshot.neighbors.above.map(Value.string))),
                    ("below", .array(snapshot.neighbors.below.map(Value.string))),
                ])
            ))
        if let text = snapshot.text { pairs.append(("text", .string(text))) }
        if let author = snapshot.author { pairs.append(("author", .string(author))) }
        if let saved = snapshot.savedAt { pairs.append(("savedAt", .string(Timestamp.format(saved)))) }
        if let device = snapshot.deviceId { pairs.append(("deviceId", .string(device))) }
        return .dictionary(pairs)
    }

    /// The restoration as one JSON object with its fields at the top level.
    public static func value(of restoration: Restoration) -> Value {
        .dictionary([
            ("postId", .string(restoration.postId)),
            ("index", .integer(restoration.index)),
            ("contentOffset", .real(restoration.contentOffset)),
            ("viewportY", .real(restoration.viewportY)),
            ("method", .string(restoration.method.rawValue)),
            ("strategy", .string(restoration.strategy)),
            ("confidence", .real(restoration.confidence)),
            ("explanation", .string(restoration.explanation)),
        ])
    }
}
