import Foundation
import GRDB
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineJSONText
import TimelineEngineSyncModel
import TimelineEngineValueTree

/// How the sync state is kept in rows: the `syncState` values, the heads' columns, and the
/// compact texts of version vectors and clock offsets.
extension SyncStateStore {
    static func milliseconds(_ date: Date) -> UInt64 {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        return milliseconds.isFinite && milliseconds > 0 ? UInt64(min(milliseconds, 1.8e19)) : 0
    }

    static func state(_ name: String, _ db: Database) throws -> String? {
        try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM syncState WHERE name = ?"), arguments: [name])
    }

    static func setState(_ name: String, _ value: String, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO syncState (name, value) VALUES (?, ?)").execute(arguments: [name, value])
    }

    static func clock(_ db: Database) throws -> HybridTimestamp {
        HybridTimestamp(rawValue: try state("hlc", db).flatMap { UInt64($0) } ?? 0)
    }

    /// Wrong clocks, one line each: device, seconds ahead, seen at (tab-separated).
    static func wrongClocks(_ db: Database) throws -> [WrongClock] {
        (try state("wrongClocks", db) ?? "").split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 3, let ahead = Double(fields[1]), let seen = Double(fields[2]) else { return nil }
            return WrongClock(device: String(fields[0]), ahead: ahead, seenAt: StoredTime.since1970(seen))
        }
    }

    static func setWrongClocks(_ clocks: [WrongClock], _ db: Database) throws {
        let lines = clocks.sorted { $0.device < $1.device }.map { clock in
            "\(clock.device.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " "))\t\(clock.ahead)\t\(clock.seenAt.timeIntervalSince1970)"
        }
        try setState("wrongClocks", lines.joined(separator: "\n"), db)
    }

    static let headColumns = """
        account, timeline, device, sequence, hlc, savedAt, epochHlc, epochDevice, progressCreatedAt, progressPostId, context, visitSeconds, \
        visitPosts, clocks, movesOlder, movesNewer, snapshot, clocksRevision, reads
        """

    /// A head from its row. Without `decodeSnapshot`, a position's snapshot is a stand-in
    /// holding its post id only (enough to merge and resolve). Nil for a row whose snapshot is
    /// damaged, or holding a value of another type than the store writes there.
    static func head(_ row: Row, decodeSnapshot: Bool, key known: RegisterKey? = nil) -> PositionRecord? {
        (try? decodedHead(row, decodeSnapshot: decodeSnapshot, key: known)) ?? nil
    }

    private static func decodedHead(_ row: Row, decodeSnapshot: Bool, key known: RegisterKey?) throws -> PositionRecord? {
        // By position, in `headColumns` order: looking columns up by name costs more than the rest.
        let snapshotText: String? = try row.stored(16)
        let progressCreatedAt: Double? = try row.stored(8)
        let progressPostId: String? = try row.stored(9)
        var snapshot: PositionSnapshot?
        if let snapshotText {
            if decodeSnapshot {
                guard let read = try? SnapshotCoding.read(Data(snapshotText.utf8)) else { return nil }
                snapshot = read
            } else {
                snapshot = PositionSnapshot(postId: progressPostId ?? "")
            }
        }
        let progress = progressCreatedAt.flatMap { createdAt in progressPostId.map { PositionRecord.Progress(createdAt: createdAt, postId: $0) } }
        let visitSeconds: Double? = try row.stored(11)
        let visitPosts: Int? = try row.stored(12)
        let device: String = try row.stored(2)
        return PositionRecord(
            key: try known ?? RegisterKey(account: row.stored(0), timeline: row.stored(1)),
            stamp: RegisterStamp(time: HybridTimestamp(rawValue: UInt64(bitPattern: try row.stored(4))), device: device),
            sequence: UInt64(bitPattern: try row.stored(3)), context: context(from: try row.stored(10)),
            savedAt: StoredTime.since1970(try row.stored(5)), snapshot: snapshot,
            epoch: RegisterStamp(time: HybridTimestamp(rawValue: UInt64(bitPattern: try row.stored(6))), device: try row.stored(7)),
            progress: progress, visit: visitSeconds.flatMap { seconds in visitPosts.map { PositionRecord.Visit(seconds: seconds, posts: $0) } },
            moves: PositionRecord.Moves(older: try row.stored(14), newer: try row.stored(15)), clocks: clocks(from: try row.stored(13)),
            clocksRevision: UInt64(bitPattern: try row.stored(17)), reads: reads(from: try row.stored(18)))
    }

    /// Read-post digests from their column (`ReadDigest.bytes(of:)`).
    static func reads(from data: Data?) -> [ReadDigest] {
        guard let data else { return [] }
        return ReadDigest.digests(from: [UInt8](data)) ?? []
    }

    /// Read-post digests as their column holds them; nil for none.
    static func readsData(_ reads: [ReadDigest]) -> Data? {
        reads.isEmpty ? nil : Data(ReadDigest.bytes(of: reads))
    }

    static func clocks(from text: String) -> ClockOffsets {
        guard text != "{}" else { return .empty }
        if let pairs = IntegerMap.decode(text) { return ClockOffsets(pairs) }
        guard let value = try? JSONReader().read(Data(text.utf8)), let pairs = value.dictionaryValue else { return .empty }
        return ClockOffsets(pairs.compactMap { key, member in member.value.integerValue?.int64Value.map { (key.string, $0) } })
    }

    static func clocksText(_ offsets: ClockOffsets) -> String {
        offsets.isEmpty ? "{}" : IntegerMap.encode(offsets.entries.map { ($0.device, $0.ahead) })
    }

    /// This device's estimates of the other devices' clocks: one line each, device, bound
    /// (ms), local time it was taken (ms), tab-separated.
    static func clockEstimates(_ db: Database) throws -> ClockEstimates {
        clockEstimates(from: try state("clockEstimates", db))
    }

    static func clockEstimates(from text: String?) -> ClockEstimates {
        var bounds: [String: (ahead: Int64, at: UInt64)] = [:]
        for line in (text ?? "").split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 3, let ahead = Int64(fields[1]), let at = UInt64(fields[2]) else { continue }
            bounds[String(fields[0])] = (ahead, at)
        }
        return ClockEstimates(bounds: bounds)
    }

    static func setClockEstimates(_ estimates: ClockEstimates, _ db: Database) throws {
        let lines = estimates.bounds.keys.sorted().compactMap { device -> String? in
            guard !device.contains("\t"), !device.contains("\n"), let bound = estimates.bounds[device] else { return nil }
            return "\(device)\t\(bound.ahead)\t\(bound.at)"
        }
        try setState("clockEstimates", lines.joined(separator: "\n"), db)
    }

    static func context(from text: String) -> VersionVector {
        guard text != "{}" else { return .empty }
        if let pairs = IntegerMap.decode(text) { return VersionVector(pairs.compactMap { $0.1 > 0 ? ($0.0, UInt64($0.1)) : nil }) }
        guard let value = try? JSONReader().read(Data(text.utf8)), let pairs = value.dictionaryValue else { return .empty }
        return VersionVector(pairs.compactMap { key, member in member.value.integerValue?.uint64Value.map { (key.string, $0) } })
    }

    static func contextText(_ vector: VersionVector) -> String {
        // Sequence numbers above Int64.max cannot be written as one; they are left out.
        vector.isEmpty ? "{}" : IntegerMap.encode(vector.entries.compactMap { entry in Int64(exactly: entry.sequence).map { (entry.device, $0) } })
    }

    /// Puts `record`, this device's head, in the outbox: the entry names the write (`kind`: a
    /// position, a tombstone, or the head published again with new clock bounds); the write
    /// itself is the head, which the next push sends.
    static func enqueue(_ record: PositionRecord, kind: String, at date: Date, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO syncQueue (account, timeline, kind, payload, enqueuedAt) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [record.key.account, record.key.timeline, kind, record.stamp.description, date.timeIntervalSince1970])
    }

    /// Writes `record` as its device's head of its register.
    static func storeHead(_ record: PositionRecord, _ db: Database, snapshotJSON: String? = nil) throws {
        let snapshot = try snapshotJSON ?? record.snapshot.map { try JSONWriter(style: .compact).write(SnapshotCoding.value(of: $0)) }
        try db.cachedStatement(
            sql: """
                INSERT OR REPLACE INTO positionHead (\(headColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            record.key.account, record.key.timeline, record.device, Int64(bitPattern: record.sequence),
            Int64(bitPattern: record.stamp.time.rawValue), record.savedAt.timeIntervalSince1970, Int64(bitPattern: record.epoch.time.rawValue),
            record.epoch.device, record.progress?.createdAt, record.progress?.postId, contextText(record.context), record.visit?.seconds,
            record.visit?.posts, clocksText(record.clocks), record.moves.older, record.moves.newer, snapshot,
            Int64(bitPattern: record.clocksRevision), readsData(record.reads),
        ])
    }

    /// The heads of `key`, decoding the snapshot of `device`'s head only (nil: every one).
    static func register(of key: RegisterKey, _ db: Database, snapshotsOf device: String?) throws -> Register {
        // In the order they were written here: a replaced head is a new row (INSERT OR REPLACE),
        // so the rows' order is the order the heads arrived in (`Register.arrivals`).
        let statement = try db.cachedStatement(
            sql: "SELECT \(headColumns) FROM positionHead WHERE account = ? AND timeline = ? ORDER BY rowid")
        var register = Register()
        for row in try Row.fetchAll(statement, arguments: [key.account, key.timeline]) {
            let decode = try device.map { $0 == (try row.stored(2, as: String.self)) } ?? true
            if let record = head(row, decodeSnapshot: decode, key: key) { register.insert(record) }
        }
        return register
    }
}
