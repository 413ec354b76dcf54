import Foundation
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineJSONText
import TimelineEngineSyncModel
import TimelineEngineValueTree

/// The sync wire format's fast path: a version-2 document of the usual shape decoded straight
/// from its bytes with `JSONScanner`, without a value tree, keeping each record's JSON text as
/// received (a sync server stores it as it came).
///
/// It accepts a subset of what `SyncWireCoding`'s tree decoder accepts, and gives the same
/// records for it: version 2, no unknown or repeated field, every value of its type and within
/// its limits, integers written as integers. For anything else it answers nil, and the tree
/// decoder reads the document and names what is wrong, so every message comes from one place.
enum SyncWireScanner {
    /// Why the fast path gives up: the tree decoder takes the document.
    private struct NotPlain: Error {}

    /// A number as `JSONReader` reads it: an integer when written as one and in range, a real
    /// otherwise.
    private enum Number {
        case integer(IntegerValue)
        case real(Double)

        var double: Double {
            switch self {
            case .integer(let value): return value.doubleValue
            case .real(let value): return value
            }
        }

        var integer: IntegerValue? {
            if case .integer(let value) = self { return value }
            return nil
        }
    }

    /// The document and each record's text, or nil when the tree decoder must read it.
    static func document(_ bytes: UnsafeBufferPointer<UInt8>) -> (SyncWireCoding.Document, [String], [String])? {
        var scanner = JSONScanner(bytes)
        scanner.maximumDepth = 64
        do {
            return try document(&scanner, bytes)
        } catch {
            return nil
        }
    }

    private static func document(_ scanner: inout JSONScanner, _ bytes: UnsafeBufferPointer<UInt8>) throws -> (
        SyncWireCoding.Document, [String], [String]
    ) {
        try scanner.beginObject()
        var seen = FieldSet()
        var device: String?
        var records: [PositionRecord] = []
        var texts: [String] = []
        var sealed: [SealedRecord] = []
        var sealedTexts: [String] = []
        var cursor: Int?
        while let key = try scanner.nextKey() {
            switch try seen.take(key, ["format", "version", "device", "records", "cursor"]) {
            case 0:
                guard try scanner.peek() == .string, try scanner.string() == SyncWireCoding.format else { throw NotPlain() }
            case 1:
                guard try number(&scanner).integer?.int64Value == Int64(SyncWireCoding.version) else { throw NotPlain() }
            case 2:
                device = try name(&scanner)
            case 3:
                try scanner.beginArray()
                while try scanner.nextElement() {
                    guard try scanner.peek() == .object else { throw NotPlain() }
                    let start = scanner.offset
                    let read = try record(&scanner)
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<scanner.offset]), as: UTF8.self)
                    switch read {
                    case .plain(let record):
                        records.append(record)
                        texts.append(text)
                    case .sealed(let record):
                        sealed.append(record)
                        sealedTexts.append(text)
                    }
                }
            default:
                if scanner.null() { break }
                guard let value = try number(&scanner).integer?.int64Value, value >= 0, value < 9_000_000_000_000_000 else { throw NotPlain() }
                cursor = Int(value)
            }
        }
        try scanner.end()
        guard seen.has(0), seen.has(1), seen.has(3), let device else { throw NotPlain() }
        return (SyncWireCoding.Document(device: device, records: records, sealed: sealed, cursor: cursor), texts, sealedTexts)
    }

    /// A record as read: in the clear, or sealed.
    private enum Read {
        case plain(PositionRecord)
        case sealed(SealedRecord)
    }

    private static func record(_ scanner: inout JSONScanner) throws -> Read {
        try scanner.beginObject()
        var seen = FieldSet()
        var account: String?
        var timeline: String?
        var device: String?
        var time: HybridTimestamp?
        var sequence: UInt64?
        var savedAt: Date?
        var epoch: RegisterStamp?
        var progress: PositionRecord.Progress?
        var visit: PositionRecord.Visit?
        var context = VersionVector()
        var moves = PositionRecord.Moves.none
        var clocks = ClockOffsets()
        var clocksRevision: UInt64 = 0
        var reads: [ReadDigest] = []
        var snapshot: PositionSnapshot?
        var keyId: String?
        var box: [UInt8]?
        let fields: [StaticString] = [
            "account", "timeline", "hlc", "device", "seq", "context", "savedAt", "epoch", "progress", "visit",
            "moves", "clocks", "position", "clocksRevision", "reads", "key", "sealed",
        ]
        while let key = try scanner.nextKey() {
            switch try seen.take(key, fields) {
            case 0: account = try name(&scanner)
            case 1: timeline = try name(&scanner)
            case 2: time = try timestamp(&scanner)
            case 3: device = try name(&scanner)
            case 4:
                guard let value = try number(&scanner).integer?.uint64Value, value > 0 else { throw NotPlain() }
                sequence = value
            case 5:
                if scanner.null() { break }
                for (name, value) in try namedIntegers(&scanner) {
                    guard let seen = value.uint64Value else { throw NotPlain() }
                    context.raise(name, to: seen)
                }
            case 6:
                guard try scanner.peek() == .string, let date = Timestamp.parse(bytes: try scanner.stringBytes()) else { throw NotPlain() }
                savedAt = date
            case 7: epoch = try registerStamp(&scanner)
            case 8:
                if scanner.null() { break }
                var createdAt = 0.0
                var postId = ""
                try members(&scanner, ["createdAt", "postId"]) { index, scanner in
                    if index == 0 { createdAt = try finite(&scanner) } else { postId = try self.postId(&scanner) }
                }
                progress = PositionRecord.Progress(createdAt: createdAt, postId: postId)
            case 9:
                if scanner.null() { break }
                var seconds = 0.0
                var posts = 0
                try members(&scanner, ["seconds", "posts"]) { index, scanner in
                    if index == 0 {
                        seconds = try finite(&scanner)
                        guard seconds >= 0 else { throw NotPlain() }
                    } else {
                        posts = try count(&scanner)
                    }
                }
                visit = PositionRecord.Visit(seconds: seconds, posts: posts)
            case 10:
                if scanner.null() { break }
                var older = 0
                var newer = 0
                try members(&scanner, ["older", "newer"]) { index, scanner in
                    if index == 0 { older = try count(&scanner) } else { newer = try count(&scanner) }
                }
                moves = PositionRecord.Moves(older: older, newer: newer)
            case 11:
                if scanner.null() { break }
                for (name, value) in try namedIntegers(&scanner) {
                    guard let ahead = value.int64Value else { throw NotPlain() }
                    clocks[name] = ahead
                }
            case 12:
                if scanner.null() { break }
                snapshot = try self.snapshot(&scanner)
            case 13:
                if scanner.null() { break }
                guard let value = try number(&scanner).integer?.uint64Value else { throw NotPlain() }
                clocksRevision = value
            case 14:
                if scanner.null() { break }
                guard let text = try optionalString(&scanner), let digests = SyncWireCoding.reads(fromText: text) else { throw NotPlain() }
                reads = digests
            case 15:
                guard try scanner.peek() == .string else { throw NotPlain() }
                let text = try scanner.string()
                guard SealedRecord.isKeyId(text) else { throw NotPlain() }
                keyId = text
            default:
                guard try scanner.peek() == .string, let bytes = SyncWireCoding.sealedBox(try scanner.string()) else { throw NotPlain() }
                box = bytes
            }
        }
        if let box {
            // A sealed record carries its clear fields only.
            guard let account, let timeline, let device, let sequence, let keyId, seen.only([0, 1, 3, 4, 13, 15, 16]) else {
                throw NotPlain()
            }
            return .sealed(
                SealedRecord(
                    key: RegisterKey(account: account, timeline: timeline), device: device, sequence: sequence,
                    clocksRevision: clocksRevision, keyId: keyId, box: box))
        }
        guard let account, let timeline, let device, let time, let sequence, let savedAt, let epoch, seen.has(12), keyId == nil else {
            throw NotPlain()
        }
        return .plain(
            PositionRecord(
                key: RegisterKey(account: account, timeline: timeline), stamp: RegisterStamp(time: time, device: device),
                sequence: sequence, context: context, savedAt: savedAt, snapshot: snapshot, epoch: epoch,
                progress: progress, visit: visit, moves: moves, clocks: clocks, clocksRevision: clocksRevision, reads: reads))
    }

    /// `{"hlc": …, "device": …}`; the device of a register never reset is empty.
    private static func registerStamp(_ scanner: inout JSONScanner) throws -> RegisterStamp {
        var time = HybridTimestamp(rawValue: 0)
        var device = ""
        try members(&scanner, ["hlc", "device"]) { index, scanner in
            if index == 0 {
                time = try timestamp(&scanner)
            } else {
                guard try scanner.peek() == .string else { throw NotPlain() }
                device = try scanner.string()
                guard device.isEmpty || SyncLimits.nameProblem(device, "") == nil else { throw NotPlain() }
            }
        }
        return RegisterStamp(time: time, device: device)
    }

    /// A position, under the names `SnapshotCoding` reads, each of its type and within its limits.
    private static func snapshot(_ scanner: inout JSONScanner) throws -> PositionSnapshot {
        var parts = FieldSet()
        var postId: String?
        var created: Date?
        var saved: Date?
        var text: String?
        var author: String?
        var deviceId: String?
        var viewportY = 0.0
        var contentOffset = 0.0
        var viewportHeight: Double?
        var index: Int?
        var timelineCount: Int?
        var neighbors = PositionSnapshot.Neighbors()
        try scanner.beginObject()
        let fields: [StaticString] = [
            "postId", "postCreatedAt", "viewportY", "contentOffset", "viewportHeight", "index", "timelineCount",
            "neighbors", "text", "author", "savedAt", "deviceId",
        ]
        while let key = try scanner.nextKey() {
            switch try parts.take(key, fields) {
            case 0: postId = try self.postId(&scanner)
            case 1: created = try date(&scanner)
            case 2: viewportY = try measure(&scanner, GeometryLimits.problem(withOffset:)) ?? 0
            case 3: contentOffset = try measure(&scanner, GeometryLimits.problem(withOffset:)) ?? 0
            case 4: viewportHeight = try measure(&scanner, GeometryLimits.problem(withViewportSize:))
            case 5: index = try measure(&scanner, GeometryLimits.problem(withIndex:)).map { Int($0) }
            case 6: timelineCount = try measure(&scanner, GeometryLimits.problem(withIndex:)).map { Int($0) }
            case 7:
                try members(&scanner, ["above", "below"], all: false) { side, scanner in
                    var ids: [String] = []
                    try scanner.beginArray()
                    while try scanner.nextElement() {
                        guard try scanner.peek() == .string else { throw NotPlain() }
                        ids.append(try scanner.string())
                    }
                    if side == 0 { neighbors.above = ids } else { neighbors.below = ids }
                }
            case 8: text = try optionalString(&scanner)
            case 9: author = try optionalString(&scanner)
            case 10: saved = try date(&scanner)
            default: deviceId = try optionalString(&scanner)
            }
        }
        guard let postId else { throw NotPlain() }
        return PositionSnapshot(
            postId: postId, postCreatedAt: created, viewportY: viewportY, contentOffset: contentOffset,
            viewportHeight: viewportHeight, index: index, timelineCount: timelineCount, neighbors: neighbors,
            text: text, author: author, savedAt: saved, deviceId: deviceId)
    }

    // MARK: Values

    private static func number(_ scanner: inout JSONScanner) throws -> Number {
        guard try scanner.peek() == .number else { throw NotPlain() }
        let (text, value) = try scanner.numberToken()
        let isInteger = !text.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
        if isInteger, case .integer(let integer) = IntegerValue.parse(text) { return .integer(integer) }
        return .real(value)
    }

    /// A finite number.
    private static func finite(_ scanner: inout JSONScanner) throws -> Double {
        let value = try number(&scanner).double
        guard value.isFinite else { throw NotPlain() }
        return value
    }

    /// An object of the members `names`, each at most once and each read by `read` with its
    /// index; with `all`, every one of them must be there.
    private static func members(
        _ scanner: inout JSONScanner, _ names: [StaticString], all: Bool = true,
        _ read: (Int, inout JSONScanner) throws -> Void
    ) throws {
        var seen = FieldSet()
        try scanner.beginObject()
        while let key = try scanner.nextKey() { try read(try seen.take(key, names), &scanner) }
        guard !all || (0..<names.count).allSatisfy(seen.has) else { throw NotPlain() }
    }

    /// A non-negative integer that fits an `Int`.
    private static func count(_ scanner: inout JSONScanner) throws -> Int {
        guard let value = try number(&scanner).integer?.intValue, value >= 0 else { throw NotPlain() }
        return value
    }

    /// A number within its limits (`problem` is nil), or nil for `null`.
    private static func measure(_ scanner: inout JSONScanner, _ problem: (Double) -> String?) throws -> Double? {
        if scanner.null() { return nil }
        let value = try number(&scanner).double
        guard problem(value) == nil else { throw NotPlain() }
        return value
    }

    /// An account, timeline or device id within `SyncLimits`.
    private static func name(_ scanner: inout JSONScanner) throws -> String {
        guard try scanner.peek() == .string else { throw NotPlain() }
        let text = try scanner.string()
        guard SyncLimits.nameProblem(text, "") == nil else { throw NotPlain() }
        return text
    }

    private static func postId(_ scanner: inout JSONScanner) throws -> String {
        guard try scanner.peek() == .string else { throw NotPlain() }
        let text = try scanner.string()
        guard SyncLimits.postIdProblem(text) == nil else { throw NotPlain() }
        return text
    }

    private static func optionalString(_ scanner: inout JSONScanner) throws -> String? {
        if scanner.null() { return nil }
        guard try scanner.peek() == .string else { throw NotPlain() }
        return try scanner.string()
    }

    private static func timestamp(_ scanner: inout JSONScanner) throws -> HybridTimestamp {
        guard try scanner.peek() == .string, let time = HybridTimestamp(try scanner.string()) else { throw NotPlain() }
        return time
    }

    private static func date(_ scanner: inout JSONScanner) throws -> Date? {
        if scanner.null() { return nil }
        guard try scanner.peek() == .string, let date = Timestamp.parse(bytes: try scanner.stringBytes()) else { throw NotPlain() }
        return date
    }

    /// An object of device ids and integers (a context, clock offsets), in their order; a
    /// repeated or invalid id gives up.
    private static func namedIntegers(_ scanner: inout JSONScanner) throws -> [(String, IntegerValue)] {
        var pairs: [(String, IntegerValue)] = []
        var names = Set<String>()
        try scanner.beginObject()
        while let key = try scanner.nextKey() {
            // Beyond the limit, the value tree's reading says why, at the write's path.
            guard pairs.count < SyncLimits.maximumDevicesPerWrite, let name = String(validating: key, as: UTF8.self),
                SyncLimits.nameProblem(name, "") == nil, names.insert(name).inserted
            else { throw NotPlain() }
            guard let value = try number(&scanner).integer else { throw NotPlain() }
            pairs.append((name, value))
        }
        return pairs
    }

    /// The fields of one object seen so far: each known once, anything else gives up.
    private struct FieldSet {
        private var bits: UInt32 = 0

        /// The index of `key` among `names`, marked seen.
        mutating func take(_ key: UnsafeBufferPointer<UInt8>, _ names: [StaticString]) throws -> Int {
            guard let index = names.firstIndex(where: { key.spells($0) }), bits & (1 << index) == 0 else { throw NotPlain() }
            bits |= 1 << index
            return index
        }

        func has(_ index: Int) -> Bool { bits & (1 << index) != 0 }

        /// Whether the fields seen are among `indexes`.
        func only(_ indexes: [Int]) -> Bool { bits & ~indexes.reduce(0) { $0 | (1 << $1) } == 0 }
    }
}
