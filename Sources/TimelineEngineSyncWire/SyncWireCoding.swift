import Foundation
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineJSONText
import TimelineEngineSyncModel
import TimelineEngineValueTree

/// The sync wire format, version 2: one JSON document per device, as a Directory transport's
/// file and an HTTP transport's body carry it (`schemas/sync-wire.schema.json`). Each record is
/// a register head:
///
/// ```json
/// {"format": "timeline-sync", "version": 2, "device": "phone", "records": [
///   {"account": "me", "timeline": "home", "hlc": "0192f4a1b2c30007", "device": "phone",
///    "seq": 12, "context": {"laptop": 7}, "savedAt": "2026-11-24T09:00:00Z",
///    "epoch": {"hlc": "0000000000000000", "device": ""},
///    "progress": {"createdAt": 1700000000, "postId": "42"},
///    "visit": {"seconds": 184.5, "posts": 23}, "moves": {"older": 40, "newer": 3},
///    "clocks": {"laptop": 3598120}, "clocksRevision": 1, "reads": "3q2+7wAAAAE=",
///    "position": {"postId": "42", "viewportY": -40, …}}]}
/// ```
///
/// `reads` is base64 of the digests of the posts the writer read last (`PositionRecord.reads`),
/// 8 bytes each, big-endian: the post id's, then its content's. `position: null` is a tombstone. Version 1 is still read: its records have no `seq` and
/// no `context`, and become heads numbered by their clock's milliseconds with an empty
/// context. Unknown fields are ignored (newer writers may add them); a missing or mistyped
/// field, a malformed timestamp or an empty device id is an error naming where it is.
public enum SyncWireCoding {
    public static let format = "timeline-sync"
    /// The version written.
    public static let version = 2
    /// The versions read.
    public static let readableVersions = 1...2

    /// A document that cannot be read: where, and why.
    public struct DecodingError: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// A decoded document.
    public struct Document: Sendable, Equatable {
        public var device: String
        public var records: [PositionRecord]
        /// The heads sealed end to end (`SealedRecord`), which only their keys open.
        public var sealed: [SealedRecord]
        /// A sync server's change counter for the user when it answered: pass it back as
        /// `since` to wait for the next change. Nil in what devices write.
        public var cursor: Int?

        public init(device: String, records: [PositionRecord], sealed: [SealedRecord] = [], cursor: Int? = nil) {
            self.device = device
            self.records = records
            self.sealed = sealed
            self.cursor = cursor
        }
    }

    /// The document in the wire format. A record with a number that has no JSON form (a
    /// snapshot's non-finite offset, which no store holds) is an error naming its key path.
    public static func encode(_ document: Document) throws(JSONWriter.UnrepresentableValue) -> Data {
        var pairs: [(String, Value)] = [("format", .string(format)), ("version", .integer(version)), ("device", .string(document.device))]
        if let cursor = document.cursor { pairs.append(("cursor", .integer(cursor))) }
        pairs.append(("records", .array(document.records.map(value(of:)) + document.sealed.map(\.value))))
        let value = Value.dictionary(pairs)
        return Data(try JSONWriter(style: .compact).write(value).utf8)
    }

    public static func value(of record: PositionRecord) -> Value {
        var pairs: [(String, Value)] = [
            ("account", .string(record.key.account)), ("timeline", .string(record.key.timeline)),
            ("hlc", .string(record.stamp.time.description)), ("device", .string(record.device)),
            ("seq", Value(.integer(IntegerValue(record.sequence)))),
            ("context", .dictionary(record.context.entries.map { ($0.device, Value(.integer(IntegerValue($0.sequence)))) })),
            ("savedAt", .string(Timestamp.format(record.savedAt))),
            ("epoch", .dictionary([("hlc", .string(record.epoch.time.description)), ("device", .string(record.epoch.device))])),
        ]
        if let progress = record.progress {
            pairs.append(("progress", .dictionary([("createdAt", .real(progress.createdAt)), ("postId", .string(progress.postId))])))
        }
        if let visit = record.visit {
            pairs.append(("visit", .dictionary([("seconds", .real(visit.seconds)), ("posts", .integer(visit.posts))])))
        }
        if !record.clocks.isEmpty {
            pairs.append(("clocks", .dictionary(record.clocks.entries.map { ($0.device, Value(.integer(IntegerValue($0.ahead)))) })))
        }
        if record.clocksRevision > 0 { pairs.append(("clocksRevision", Value(.integer(IntegerValue(record.clocksRevision))))) }
        if !record.reads.isEmpty { pairs.append(("reads", .string(readsText(record.reads)))) }
        if record.moves != .none {
            pairs.append(
                (
                    "moves",
                    .dictionary([
                        ("older", .integer(record.moves.older)),
                        ("newer", .integer(record.moves.newer)),
                    ])
                ))
        }
        pairs.append(("position", record.snapshot.map(SnapshotCoding.value(of:)) ?? .null))
        return .dictionary(pairs)
    }

    /// A document as received, with each record's JSON text: as it came when the document
    /// took the fast path (`texts`), nil when it was read through a value tree (a version-1
    /// document, unknown fields, numbers written unusually), whose records are then to be
    /// written again (`value(of:)`).
    public struct Received: Sendable {
        public var document: Document
        public var texts: [String]?
        /// The text of each sealed record, as `texts` of the others.
        public var sealedTexts: [String]?
    }

    public static func decode(_ data: Data) throws(DecodingError) -> Document {
        try received(data).document
    }

    /// Decodes a document, keeping each record's text when it can. Documents of the usual shape
    /// are decoded straight from the bytes (`SyncWireScanner`); any other goes through a value
    /// tree, which also names what is wrong with a bad one. Both give the same records.
    public static func received(_ data: Data) throws(DecodingError) -> Received {
        if let fast = data.withUnsafeBytes(scanned) { return fast }
        return Received(document: try treeDecode(data), texts: nil)
    }

    /// `received(_:)` over bytes in memory, such as a request's body.
    public static func received(_ bytes: UnsafeRawBufferPointer) throws(DecodingError) -> Received {
        if let fast = scanned(bytes) { return fast }
        return Received(document: try treeDecode(Data(bytes)), texts: nil)
    }

    /// The fast path's reading, or nil when the tree decoder must read the document.
    private static func scanned(_ bytes: UnsafeRawBufferPointer) -> Received? {
        SyncWireScanner.document(bytes.assumingMemoryBound(to: UInt8.self)).map { Received(document: $0.0, texts: $0.1, sealedTexts: $0.2) }
    }

    /// The decoder of every document: through a value tree, with a message for each fault.
    static func treeDecode(_ data: Data) throws(DecodingError) -> Document {
        let root: Value
        do {
            root = try JSONReader(maximumDepth: 64).read(data)
        } catch {
            throw DecodingError("not JSON: \(error.description)")
        }
        guard root["format"]?.stringValue == format else { throw DecodingError("\"format\" must be \"\(format)\"") }
        guard let version = root["version"]?.numberValue else { throw DecodingError("\"version\" must be a number") }
        guard let readVersion = Self.readableVersions.first(where: { Double($0) == version }) else {
            throw DecodingError(
                """
                version \(root["version"]!.description) is not supported; this engine reads versions \(readableVersions.lowerBound) \
                to \(readableVersions.upperBound)
                """)
        }
        let device = try string(root, "device", at: "")
        guard let records = root["records"]?.arrayValue else { throw DecodingError("\"records\" must be an array") }
        var decoded: [PositionRecord] = []
        var sealed: [SealedRecord] = []
        decoded.reserveCapacity(records.count)
        for (number, entry) in records.enumerated() {
            if let box = entry["sealed"], box != .null {
                sealed.append(try sealedRecord(entry, at: "records[\(number)]"))
            } else {
                decoded.append(try record(entry, at: "records[\(number)]", version: readVersion))
            }
        }
        var cursor: Int?
        if let written = root["cursor"], written != .null {
            guard let number = written.numberValue, number >= 0, number < 9e15, number == number.rounded() else {
                throw DecodingError("\"cursor\" must be a non-negative integer")
            }
            cursor = Int(number)
        }
        return Document(device: device, records: decoded, sealed: sealed, cursor: cursor)
    }

    /// One sealed record (`SealedRecord`): its clear fields checked, its box left sealed.
    public static func sealedRecord(_ entry: Value, at path: String) throws(DecodingError) -> SealedRecord {
        guard entry.dictionaryValue != nil else { throw DecodingError("\(path) must be an object") }
        let key = RegisterKey(account: try string(entry, "account", at: path), timeline: try string(entry, "timeline", at: path))
        let device = try string(entry, "device", at: path)
        guard let sequence = entry["seq"]?.integerValue?.uint64Value, sequence > 0 else {
            throw DecodingError("\(path).seq must be a positive integer")
        }
        var clocksRevision: UInt64 = 0
        if let written = entry["clocksRevision"], written != .null {
            guard let value = written.integerValue?.uint64Value else { throw DecodingError("\(path).clocksRevision must be a non-negative integer") }
            clocksRevision = value
        }
        guard let keyId = entry["key"]?.stringValue, SealedRecord.isKeyId(keyId) else {
            throw DecodingError("\(path).key must be a key id: 8 lowercase hexadecimal digits")
        }
        guard let text = entry["sealed"]?.stringValue, let box = sealedBox(text) else {
            throw DecodingError(
                "\(path).sealed must be base64 of a sealed position: a nonce, at most \(SealedRecord.maximumBoxBytes) bytes and a tag")
        }
        return SealedRecord(key: key, device: device, sequence: sequence, clocksRevision: clocksRevision, keyId: keyId, box: box)
    }

    /// The bytes of a `sealed` text, or nil when it is not base64 of a box of a possible size.
    static func sealedBox(_ text: String) -> [UInt8]? {
        guard text.utf8.count <= (SealedRecord.maximumBoxBytes + 28 + 2) / 3 * 4, let data = Data(base64Encoded: text), data.count > 28 else {
            return nil
        }
        return [UInt8](data)
    }

    /// One record of a document of `version`.
    public static func record(_ entry: Value, at path: String, version: Int = version) throws(DecodingError) -> PositionRecord {
        guard entry.dictionaryValue != nil else { throw DecodingError("\(path) must be an object") }
        let key = RegisterKey(account: try string(entry, "account", at: path), timeline: try string(entry, "timeline", at: path))
        let stamp = RegisterStamp(time: try timestamp(entry, "hlc", at: path), device: try string(entry, "device", at: path))
        guard let savedText = entry["savedAt"]?.stringValue, let savedAt = Timestamp.parse(savedText) else {
            throw DecodingError("\(path).savedAt must be an RFC 3339 timestamp")
        }
        guard let epochValue = entry["epoch"], epochValue.dictionaryValue != nil else { throw DecodingError("\(path).epoch must be an object") }
        guard let epochDevice = epochValue["device"]?.stringValue else { throw DecodingError("\(path).epoch.device must be a string") }
        // The epoch of a register never reset is written with an empty device.
        if !epochDevice.isEmpty, let problem = SyncLimits.nameProblem(epochDevice, "\(path).epoch.device") { throw DecodingError(problem) }
        let epoch = RegisterStamp(time: try timestamp(epochValue, "hlc", at: path + ".epoch"), device: epochDevice)
        var progress: PositionRecord.Progress?
        if let written = entry["progress"], written != .null {
            guard let createdAt = written["createdAt"]?.numberValue, createdAt.isFinite, let postId = written["postId"]?.stringValue else {
                throw DecodingError("\(path).progress must have a number createdAt and a string postId")
            }
            if let problem = SyncLimits.postIdProblem(postId, "\(path).progress.postId") { throw DecodingError(problem) }
            progress = PositionRecord.Progress(createdAt: createdAt, postId: postId)
        }
        guard let position = entry["position"] else { throw DecodingError("\(path).position is missing (null for a tombstone)") }
        var snapshot: PositionSnapshot?
        if position != .null {
            do {
                snapshot = try SnapshotCoding.snapshot(from: position)
            } catch {
                throw DecodingError("\(path).position: \(error.message)")
            }
            if let id = snapshot?.postId, let problem = SyncLimits.postIdProblem(id, "\(path).position.postId") { throw DecodingError(problem) }
        }
        var sequence: UInt64?
        var context = VersionVector()
        if version >= 2 {
            guard let value = entry["seq"]?.integerValue?.uint64Value, value > 0 else {
                throw DecodingError("\(path).seq must be a positive integer")
            }
            sequence = value
            if let written = entry["context"], written != .null {
                guard let pairs = written.dictionaryValue else { throw DecodingError("\(path).context must be an object of sequence numbers") }
                if let problem = SyncLimits.devicesProblem(pairs.count, "\(path).context") { throw DecodingError(problem) }
                for (device, value) in pairs {
                    if let problem = SyncLimits.nameProblem(device.string, "\(path).context key") { throw DecodingError(problem) }
                    guard let seen = value.value.integerValue?.uint64Value else {
                        throw DecodingError("\(path).context.\(device) must be a non-negative integer")
                    }
                    context.raise(device.string, to: seen)
                }
            }
        }
        var visit: PositionRecord.Visit?
        if let written = entry["visit"], written != .null {
            guard let seconds = written["seconds"]?.numberValue, seconds.isFinite, seconds >= 0,
                let posts = written["posts"]?.integerValue?.intValue, posts >= 0
            else {
                throw DecodingError("\(path).visit must have a non-negative number seconds and a non-negative integer posts")
            }
            visit = PositionRecord.Visit(seconds: seconds, posts: posts)
        }
        var moves = PositionRecord.Moves.none
        if let written = entry["moves"], written != .null {
            guard let olderCount = written["older"]?.integerValue?.intValue, olderCount >= 0,
                let newerCount = written["newer"]?.integerValue?.intValue, newerCount >= 0
            else {
                throw DecodingError("\(path).moves must have non-negative integers older and newer")
            }
            moves = PositionRecord.Moves(older: olderCount, newer: newerCount)
        }
        var clocks = ClockOffsets()
        if let written = entry["clocks"], written != .null {
            guard let pairs = written.dictionaryValue else { throw DecodingError("\(path).clocks must be an object of milliseconds") }
            if let problem = SyncLimits.devicesProblem(pairs.count, "\(path).clocks") { throw DecodingError(problem) }
            for (device, value) in pairs {
                if let problem = SyncLimits.nameProblem(device.string, "\(path).clocks key") { throw DecodingError(problem) }
                guard let ahead = value.value.integerValue?.int64Value else {
                    throw DecodingError("\(path).clocks.\(device) must be an integer number of milliseconds")
                }
                clocks[device.string] = ahead
            }
        }
        var clocksRevision: UInt64 = 0
        if let written = entry["clocksRevision"], written != .null {
            guard let value = written.integerValue?.uint64Value else { throw DecodingError("\(path).clocksRevision must be a non-negative integer") }
            clocksRevision = value
        }
        var reads: [ReadDigest] = []
        if let written = entry["reads"], written != .null {
            guard let text = written.stringValue, let digests = Self.reads(fromText: text) else {
                throw DecodingError(
                    "\(path).reads must be base64 of at most \(PositionRecord.maximumReads) read digests of 8 bytes each")
            }
            reads = digests
        }
        return PositionRecord(
            key: key, stamp: stamp, sequence: sequence, context: context, savedAt: savedAt, snapshot: snapshot, epoch: epoch,
            progress: progress, visit: visit, moves: moves, clocks: clocks, clocksRevision: clocksRevision, reads: reads)
    }

    /// Read-post digests as the wire writes them: base64 of `ReadDigest.bytes(of:)`.
    public static func readsText(_ reads: [ReadDigest]) -> String {
        Data(ReadDigest.bytes(of: reads)).base64EncodedString()
    }

    /// The digests of a `reads` text, or nil when it is not base64 of whole digests, or holds
    /// more than `PositionRecord.maximumReads`.
    public static func reads(fromText text: String) -> [ReadDigest]? {
        guard text.utf8.count <= (PositionRecord.maximumReads * 8 + 2) / 3 * 4, let data = Data(base64Encoded: text) else { return nil }
        return ReadDigest.digests(from: [UInt8](data))
    }

    private static func string(_ value: Value, _ key: String, at path: String) throws(DecodingError) -> String {
        let field = path.isEmpty ? key : "\(path).\(key)"
        guard let text = value[key]?.stringValue else { throw DecodingError("\(field) must be a string") }
        if let problem = SyncLimits.nameProblem(text, field) { throw DecodingError(problem) }
        return text
    }

    private static func timestamp(_ value: Value, _ key: String, at path: String) throws(DecodingError) -> HybridTimestamp {
        guard let text = value[key]?.stringValue, let time = HybridTimestamp(text) else {
            throw DecodingError("\(path).\(key) must be a hybrid timestamp: 16 hexadecimal digits")
        }
        return time
    }
}
