import Foundation
import GRDB
import JSONText
import SyncModel
import TimelineCore
import TimelineFormats

/// Cross-device sync in the store: the device id, the hybrid clock, the position registers,
/// every device's last position, and the outbox (`syncQueue`), all changed in the same
/// transactions as the positions they describe.
extension TimelineStore {
    /// What the last sync rounds left: when one last succeeded, the last error, and the devices
    /// heard from.
    public struct SyncRecord: Sendable, Equatable {
        public var lastSyncAt: Date?
        public var lastError: String?
        public var lastAttemptAt: Date?
        public var devices: [String]
    }

    /// This store's device id, created once (a random id) and kept; `override` replaces it
    /// (tests, and `--device`).
    public func deviceId(override: String? = nil) throws(StoreError) -> String {
        try write { db in
            if let override, !override.isEmpty {
                try Self.setState("device", override, db)
                return override
            }
            if let existing = try Self.state("device", db) { return existing }
            let created = UUID().uuidString.lowercased()
            try Self.setState("device", created, db)
            return created
        }
    }

    /// The device id if one was created, without creating it.
    public func storedDeviceId() throws(StoreError) -> String? {
        try read { db in try Self.state("device", db) }
    }

    /// Saves a position as the reader left it: the register, this device's position, the
    /// history and the outbox, in one transaction. `explicit` marks a move back on purpose;
    /// `ordered` says the timeline is chronological, so that progress along it can be compared.
    /// A save that repeats this device's last write (`PositionRecord.isRepeated(by:)`) updates
    /// the history only, and returns that write.
    @discardableResult
    public func savePosition(_ snapshot: PositionSnapshot, scope: StoreScope, device: String, explicit: Bool = false, ordered: Bool = true,
                             at date: Date = Date(), policy: any MergePolicy) throws(StoreError) -> PositionRecord {
        try writeLocal(snapshot, scope: scope, device: device, reset: explicit, ordered: ordered, at: date, policy: policy)
    }

    /// Forgets a position: a tombstone, which wins by the same order and travels like a write.
    @discardableResult
    public func forgetPosition(scope: StoreScope, device: String, at date: Date = Date(), policy: any MergePolicy) throws(StoreError) -> PositionRecord {
        try writeLocal(nil, scope: scope, device: device, reset: true, ordered: false, at: date, policy: policy)
    }

    private func writeLocal(_ snapshot: PositionSnapshot?, scope: StoreScope, device: String, reset: Bool, ordered: Bool, at date: Date,
                            policy: any MergePolicy) throws(StoreError) -> PositionRecord {
        try write { db in
            let key = RegisterKey(account: scope.account, timeline: scope.timeline)
            if let snapshot, !reset, let own = try Self.ownWrite(of: key, device: device, db), own.isRepeated(by: snapshot) {
                var saved = snapshot
                saved.savedAt = snapshot.savedAt ?? date
                saved.deviceId = device
                let json = try JSONWriter(style: .compact).write(SnapshotCoding.value(of: saved))
                try db.cachedStatement(sql: "INSERT OR REPLACE INTO positionHistory (account, timeline, postId, savedAt, snapshot) VALUES (?, ?, ?, ?, ?)")
                    .execute(arguments: [scope.account, scope.timeline, saved.postId, date.timeIntervalSince1970, json])
                return own
            }
            var clock = HybridClock(last: try Self.clock(db))
            let stamp = RegisterStamp(time: clock.tick(wall: Self.milliseconds(date)), device: device)
            try Self.setState("hlc", String(clock.last.rawValue), db)
            // The snapshot is encoded once, for the register, the outbox and the history alike.
            let epoch = reset ? stamp : try Self.latestEpoch(of: key, db)
            let saved = snapshot.map { snapshot -> PositionSnapshot in
                var stamped = snapshot
                stamped.savedAt = snapshot.savedAt ?? date
                stamped.deviceId = device
                return stamped
            }
            let progress = saved.flatMap { snapshot in
                ordered ? snapshot.postCreatedAt.map { PositionRecord.Progress(createdAt: $0.timeIntervalSince1970, postId: snapshot.postId) } : nil
            }
            let record = PositionRecord(key: key, stamp: stamp, savedAt: date, snapshot: saved, epoch: epoch, progress: progress)
            let json = try saved.map { try JSONWriter(style: .compact).write(SnapshotCoding.value(of: $0)) }
            try Self.apply(record, policy: policy, db, snapshotJSON: json)
            // The outbox names the write; the write itself is in the tables, and a round pushes
            // the whole state.
            try db.cachedStatement(sql: "INSERT INTO syncQueue (account, timeline, kind, payload, enqueuedAt) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [scope.account, scope.timeline, saved == nil ? "tombstone" : "position", stamp.description,
                                     date.timeIntervalSince1970])
            if let saved, let json {
                try db.cachedStatement(sql: "INSERT OR REPLACE INTO positionHistory (account, timeline, postId, savedAt, snapshot) VALUES (?, ?, ?, ?, ?)")
                    .execute(arguments: [scope.account, scope.timeline, saved.postId, date.timeIntervalSince1970, json])
            }
            return record
        }
    }

    /// Merges writes from other devices, in one transaction, and moves the clock past them.
    /// Returns the registers whose value changed, and how far ahead of `date` the furthest
    /// remote clock was (milliseconds; 0 when none was ahead).
    public func applyRemote(_ records: [PositionRecord], policy: any MergePolicy,
                            at date: Date = Date()) throws(StoreError) -> (changed: [RegisterKey], clockAhead: UInt64) {
        try write { db in
            var clock = HybridClock(last: try Self.clock(db))
            var ahead: UInt64 = 0
            var changed = Set<RegisterKey>()
            for record in records {
                ahead = max(ahead, clock.observe(record.stamp.time, wall: Self.milliseconds(date)))
                if try Self.apply(record, policy: policy, db) { changed.insert(record.key) }
            }
            try Self.setState("hlc", String(clock.last.rawValue), db)
            return (changed.sorted(), ahead)
        }
    }

    /// Everything the store knows: registers and device positions.
    public func replicaState() throws(StoreError) -> ReplicaState {
        try read { db in try Self.state(of: nil, db) }
    }

    /// A local write waiting in the outbox: which register, and its stamp (`HLC@device`).
    public struct PendingWrite: Sendable, Equatable {
        public let id: Int64
        public let key: RegisterKey
        public let stamp: String
        public let isTombstone: Bool
    }

    /// The outbox: local writes not yet acknowledged by a transport, oldest first.
    public func pendingWrites() throws(StoreError) -> [PendingWrite] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT id, account, timeline, kind, payload FROM syncQueue ORDER BY id").map { row in
                PendingWrite(id: row[0], key: RegisterKey(account: row[1], timeline: row[2]), stamp: row[4], isTombstone: row[3] == "tombstone")
            }
        }
    }

    /// Removes acknowledged writes from the outbox, and notes a successful round.
    public func acknowledge(_ ids: [Int64], devices: [String], at date: Date) throws(StoreError) {
        try write { db in
            for id in ids { try db.execute(sql: "DELETE FROM syncQueue WHERE id = ?", arguments: [id]) }
            try Self.setState("lastSyncAt", String(date.timeIntervalSince1970), db)
            try Self.setState("lastAttemptAt", String(date.timeIntervalSince1970), db)
            try db.execute(sql: "DELETE FROM syncState WHERE name = 'lastError'")
            let known = Set((try Self.state("devices", db) ?? "").split(separator: "\n").map(String.init)).union(devices)
            try Self.setState("devices", known.sorted().joined(separator: "\n"), db)
        }
    }

    /// Notes a failed round.
    public func recordSyncFailure(_ message: String, at date: Date) throws(StoreError) {
        try write { db in
            try Self.setState("lastError", message, db)
            try Self.setState("lastAttemptAt", String(date.timeIntervalSince1970), db)
        }
    }

    /// What the last rounds left.
    public func syncRecord() throws(StoreError) -> SyncRecord {
        try read { db in
            func date(_ name: String) throws -> Date? { try Self.state(name, db).flatMap(Double.init).map(Date.init(timeIntervalSince1970:)) }
            let devices = (try Self.state("devices", db) ?? "").split(separator: "\n").map(String.init)
            return SyncRecord(lastSyncAt: try date("lastSyncAt"), lastError: try Self.state("lastError", db), lastAttemptAt: try date("lastAttemptAt"),
                              devices: devices)
        }
    }

    /// Forgets every write stamped before `cutoff` (now minus the grace period): positions and
    /// tombstones alike, and outbox entries never sent. Every device does the same and ignores
    /// older writes it pulls, so replicas still converge, on the writes of the grace period; and
    /// a tombstone is never purged while a position it deleted could still arrive. Local
    /// restores read the position history, which this leaves alone. Returns how many registers
    /// were forgotten.
    @discardableResult
    public func purgeSyncState(before cutoff: Date) throws(StoreError) -> Int {
        let limit = Int64(bitPattern: HybridTimestamp(milliseconds: Self.milliseconds(cutoff), counter: 0).rawValue)
        return try write { db in
            try db.execute(sql: "DELETE FROM positionRegister WHERE hlc < ?", arguments: [limit])
            let removed = db.changesCount
            try db.execute(sql: "DELETE FROM devicePosition WHERE hlc < ?", arguments: [limit])
            try db.execute(sql: "DELETE FROM syncQueue WHERE enqueuedAt < ?", arguments: [cutoff.timeIntervalSince1970])
            return removed
        }
    }

    // MARK: Rows

    static func milliseconds(_ date: Date) -> UInt64 {
        UInt64(max(0, (date.timeIntervalSince1970 * 1000).rounded(.down)))
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

    static let recordColumns = "account, timeline, hlc, device, savedAt, epochHlc, epochDevice, progressCreatedAt, progressPostId, snapshot"

    static func record(_ row: Row) -> PositionRecord? {
        let snapshotText: String? = row["snapshot"]
        var snapshot: PositionSnapshot?
        if let snapshotText {
            guard let read = try? SnapshotCoding.read(Data(snapshotText.utf8)) else { return nil }
            snapshot = read
        }
        let progressCreatedAt: Double? = row["progressCreatedAt"], progressPostId: String? = row["progressPostId"]
        let progress = progressCreatedAt.flatMap { createdAt in progressPostId.map { PositionRecord.Progress(createdAt: createdAt, postId: $0) } }
        return PositionRecord(
            key: RegisterKey(account: row["account"], timeline: row["timeline"]),
            stamp: RegisterStamp(time: HybridTimestamp(rawValue: UInt64(bitPattern: row["hlc"])), device: row["device"]),
            savedAt: Date(timeIntervalSince1970: row["savedAt"]), snapshot: snapshot,
            epoch: RegisterStamp(time: HybridTimestamp(rawValue: UInt64(bitPattern: row["epochHlc"])), device: row["epochDevice"]),
            progress: progress)
    }

    static func arguments(_ record: PositionRecord, snapshotJSON: String? = nil) throws -> StatementArguments {
        let snapshot = try snapshotJSON ?? record.snapshot.map { try JSONWriter(style: .compact).write(SnapshotCoding.value(of: $0)) }
        return [record.key.account, record.key.timeline, Int64(bitPattern: record.stamp.time.rawValue), record.device,
                record.savedAt.timeIntervalSince1970, Int64(bitPattern: record.epoch.time.rawValue), record.epoch.device,
                record.progress?.createdAt, record.progress?.postId, snapshot]
    }

    /// The state of one register (`key`) or of all.
    static func state(of key: RegisterKey?, _ db: Database) throws -> ReplicaState {
        var state = ReplicaState()
        let filter = key == nil ? "" : " WHERE account = ? AND timeline = ?"
        let arguments: StatementArguments = key.map { [$0.account, $0.timeline] } ?? []
        for row in try Row.fetchAll(db, sql: "SELECT \(recordColumns) FROM positionRegister\(filter)", arguments: arguments) {
            if let record = record(row) { state.registers[record.key] = record }
        }
        for row in try Row.fetchAll(db, sql: "SELECT \(recordColumns) FROM devicePosition\(filter)", arguments: arguments) {
            if let record = record(row) { state.devicePositions[record.key, default: [:]][record.device] = record }
        }
        return state
    }

    /// This device's latest write to `key`, with its snapshot.
    static func ownWrite(of key: RegisterKey, device: String, _ db: Database) throws -> PositionRecord? {
        let statement = try db.cachedStatement(sql: "SELECT \(recordColumns) FROM devicePosition WHERE account = ? AND timeline = ? AND device = ?")
        return try Row.fetchOne(statement, arguments: [key.account, key.timeline, device]).flatMap(record)
    }

    /// The latest reset written to `key` that the store knows: the epoch of a new local write.
    static func latestEpoch(of key: RegisterKey, _ db: Database) throws -> RegisterStamp {
        // UTF-8 byte order (SQLite's BINARY) is Unicode scalar order, as RegisterStamp compares.
        let statement = try db.cachedStatement(sql: """
            SELECT epochHlc, epochDevice FROM (SELECT epochHlc, epochDevice FROM positionRegister WHERE account = ? AND timeline = ?
            UNION ALL SELECT epochHlc, epochDevice FROM devicePosition WHERE account = ? AND timeline = ?)
            ORDER BY epochHlc DESC, epochDevice DESC LIMIT 1
            """)
        guard let row = try Row.fetchOne(statement, arguments: [key.account, key.timeline, key.account, key.timeline]) else { return .zero }
        return RegisterStamp(time: HybridTimestamp(rawValue: UInt64(bitPattern: row[0])), device: row[1])
    }

    /// A stored write as a merge policy compares it: everything but the snapshot's fields,
    /// which are not decoded (a stand-in marks a position).
    static func orderingRecord(_ row: Row, key: RegisterKey) -> PositionRecord {
        let progressCreatedAt: Double? = row["progressCreatedAt"], progressPostId: String? = row["progressPostId"]
        let progress = progressCreatedAt.flatMap { createdAt in progressPostId.map { PositionRecord.Progress(createdAt: createdAt, postId: $0) } }
        let isPosition: Bool = row["isPosition"]
        return PositionRecord(
            key: key, stamp: RegisterStamp(time: HybridTimestamp(rawValue: UInt64(bitPattern: row["hlc"])), device: row["device"]),
            savedAt: Date(timeIntervalSince1970: row["savedAt"]), snapshot: isPosition ? PositionSnapshot(postId: progressPostId ?? "") : nil,
            epoch: RegisterStamp(time: HybridTimestamp(rawValue: UInt64(bitPattern: row["epochHlc"])), device: row["epochDevice"]),
            progress: progress)
    }

    /// Merges one write into the tables; true when the register's value changed.
    @discardableResult
    static func apply(_ record: PositionRecord, policy: any MergePolicy, _ db: Database, snapshotJSON: String? = nil) throws -> Bool {
        let own = try db.cachedStatement(sql: "SELECT hlc, device FROM devicePosition WHERE account = ? AND timeline = ? AND device = ?")
        let ownStamp = try Row.fetchOne(own, arguments: [record.key.account, record.key.timeline, record.device]).map { row in
            RegisterStamp(time: HybridTimestamp(rawValue: UInt64(bitPattern: row[0])), device: row[1])
        }
        let insert = "(\(recordColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        let values = try arguments(record, snapshotJSON: snapshotJSON)
        if ownStamp.map({ $0 < record.stamp }) ?? true {
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO devicePosition \(insert)").execute(arguments: values)
        }
        let currentStatement = try db.cachedStatement(sql: """
            SELECT hlc, device, savedAt, epochHlc, epochDevice, progressCreatedAt, progressPostId, snapshot IS NOT NULL AS isPosition
            FROM positionRegister WHERE account = ? AND timeline = ?
            """)
        if let row = try Row.fetchOne(currentStatement, arguments: [record.key.account, record.key.timeline]) {
            let current = orderingRecord(row, key: record.key)
            guard current.stamp != record.stamp, policy.precedes(current, record) else { return false }
        }
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO positionRegister \(insert)").execute(arguments: values)
        return true
    }
}
