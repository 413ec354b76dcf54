import Foundation
import GRDB
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineJSONText
import TimelineEngineLogging
import TimelineEngineSyncModel
import TimelineEngineValueTree

/// The store's cross-device sync state: the device id, its hybrid clock and write counter,
/// every register's heads (each device's latest write, `positionHead`), and the outbox
/// (`syncQueue`), all changed in the same transactions as the positions they describe. The heads
/// are merged by `Register`, the one merge of the project; a merge policy reads the value from
/// them.
public struct SyncStateStore: Sendable {
    let database: StoreDatabase
    /// Where its records go (`TimelineStore.init(path:create:loggers:)`).
    let loggers: EngineLoggers

    /// What the last sync rounds left: when one last succeeded, the last error, the devices
    /// heard from, and the devices whose clocks were found wrong.
    public struct SyncRecord: Sendable, Equatable {
        public var lastSyncAt: Date?
        public var lastError: String?
        public var lastAttemptAt: Date?
        public var devices: [String]
        public var wrongClocks: [WrongClock]
    }

    /// A device whose writes were stamped further ahead of this device's clock than
    /// `Sync.MaxClockOffset`: taken in without moving this device's clock.
    public struct WrongClock: Sendable, Equatable {
        public var device: String
        /// How far ahead its latest such write was, in seconds.
        public var ahead: TimeInterval
        /// When this device saw it.
        public var seenAt: Date

        public init(device: String, ahead: TimeInterval, seenAt: Date) {
            self.device = device
            self.ahead = ahead
            self.seenAt = seenAt
        }
    }

    /// What merging remote writes did.
    public struct RemoteMerge: Sendable, Equatable {
        /// The registers whose heads changed.
        public var changed: [RegisterKey]
        /// Devices with writes more than the maximum offset ahead, and how far, in milliseconds.
        public var wrongClocks: [String: UInt64]
        /// For each register that held the heads of `SyncLimits.maximumDevicesPerRegister`
        /// devices, how many heads of other devices were set aside.
        public var setAside: [RegisterKey: Int] = [:]
    }

    /// This store's device id, created once (a random id) and kept; `override` replaces it
    /// (tests, and `--device`).
    public func deviceId(override: String? = nil) async throws(StoreError) -> String {
        if let override, !override.isEmpty, let problem = SyncLimits.nameProblem(override, "the device id") {
            throw StoreError(path: database.path, problem)
        }
        return try await database.write { db in
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
    public func storedDeviceId() async throws(StoreError) -> String? {
        try await database.read { db in try Self.state("device", db) }
    }

    /// Saves a position as the reader left it: this device's head of the register, the
    /// history and the outbox, in one transaction. The write carries the register's causal
    /// context (`Register.localWrite`). `explicit` marks a move back on purpose; `ordered` says
    /// the timeline is chronological, so that progress along it can be compared; `visit` says
    /// how long the device had been open and how far the reader had moved since. A save that
    /// repeats this device's head (`PositionRecord.isRepeated(by:)`) updates the history only,
    /// and returns that head.
    @discardableResult
    public func savePosition(
        _ snapshot: PositionSnapshot, scope: StoreScope, device: String, explicit: Bool = false, ordered: Bool = true,
        visit: PositionRecord.Visit? = nil, at date: Date = Date()
    ) async throws(StoreError) -> PositionRecord {
        let record = try await writeLocal(snapshot, scope: scope, device: device, explicit: explicit, ordered: ordered, visit: visit, at: date)
        TimelineStore.logSave(snapshot, scope: scope, device: device, to: loggers.position)
        return record
    }

    /// Forgets a position: a tombstone, a reset that travels like a write.
    @discardableResult
    public func forgetPosition(scope: StoreScope, device: String, at date: Date = Date()) async throws(StoreError) -> PositionRecord {
        try await writeLocal(nil, scope: scope, device: device, explicit: true, ordered: false, visit: nil, at: date)
    }

    private func writeLocal(
        _ snapshot: PositionSnapshot?, scope: StoreScope, device: String, explicit: Bool, ordered: Bool,
        visit: PositionRecord.Visit?, at date: Date
    ) async throws(StoreError) -> PositionRecord {
        // What the wire could not carry is refused here, before it is saved and queued.
        for (value, what) in [(device, "the device id"), (scope.account, "the account"), (scope.timeline, "the timeline")] {
            if let problem = SyncLimits.nameProblem(value, what) { throw StoreError(path: database.path, problem) }
        }
        if let id = snapshot?.postId, let problem = SyncLimits.postIdProblem(id) { throw StoreError(path: database.path, problem) }
        return try await database.write { db in
            let key = RegisterKey(account: scope.account, timeline: scope.timeline)
            let register = try Self.register(of: key, db, snapshotsOf: device)
            let saved = snapshot.map { snapshot -> PositionSnapshot in
                var stamped = snapshot
                stamped.savedAt = snapshot.savedAt ?? date
                stamped.deviceId = device
                return stamped
            }
            let json = try saved.map { try JSONWriter(style: .compact).write(SnapshotCoding.value(of: $0)) }
            if let saved, let json {
                try db.cachedStatement(
                    sql: "INSERT OR REPLACE INTO positionHistory (account, timeline, postId, savedAt, snapshot) VALUES (?, ?, ?, ?, ?)"
                )
                .execute(arguments: [scope.account, scope.timeline, saved.postId, date.timeIntervalSince1970, json])
                if !explicit, let own = register.head(of: device), own.isRepeated(by: saved) { return own }
            }
            // The clock, the write counter and the clock bounds, read in one statement.
            var values: [String: String] = [:]
            for row in try Row.fetchAll(
                db.cachedStatement(sql: "SELECT name, value FROM syncState WHERE name IN ('hlc', 'sequence', 'clockEstimates')"))
            {
                values[try row.stored(0, as: String.self)] = try row.stored(1, as: String.self)
            }
            var clock = HybridClock(last: HybridTimestamp(rawValue: values["hlc"].flatMap { UInt64($0) } ?? 0))
            let before = clock.last
            let stamp = RegisterStamp(time: clock.tick(wall: Self.milliseconds(date)), device: device)
            // A saturated clock cannot stamp a write after the last: saved anyway, it would lose.
            guard stamp.time > before else {
                throw StoreError(
                    path: database.path,
                    """
                    the clock of device \(TerminalText.escaped(device)) has reached its largest value (\(before)): its wall clock is wrong \
                    (\(Timestamp.format(date))); nothing it saves could be ordered after its last write, so nothing is saved
                    """)
            }
            let sequence = max(values["sequence"].flatMap { UInt64($0) } ?? 0, register.head(of: device)?.sequence ?? 0) + 1
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO syncState (name, value) VALUES ('hlc', ?), ('sequence', ?)")
                .execute(arguments: [String(clock.last.rawValue), String(sequence)])
            // What was read last in this scope goes with the write, for the other devices' count
            // of what is new above the reader.
            let reads = try PositionHistoryStore.recentReads(scope: scope, db: db)
            let record = register.localWrite(
                saved, key: key, stamp: stamp, sequence: sequence, savedAt: date, explicit: explicit, ordered: ordered,
                visit: visit, clocks: Self.clockEstimates(from: values["clockEstimates"]).offsets, reads: reads)
            // What no device could take in is refused here, not by every peer later.
            if let problem = SyncLimits.devicesProblem(record.context.entries.count, "its causal context")
                ?? SyncLimits.devicesProblem(record.clocks.entries.count, "its clock bounds")
            {
                throw StoreError(path: database.path, "the write cannot be carried: \(problem); nothing is saved")
            }
            try Self.storeHead(record, db, snapshotJSON: json)
            try Self.enqueue(record, kind: saved == nil ? "tombstone" : "position", at: date, db)
            return record
        }
    }

    /// Merges writes from other devices, in one transaction: each becomes its device's head
    /// unless that head is as recent. The clock moves past every remote write, except one more
    /// than `maxClockOffset` seconds ahead of `date` (nil: no limit), which is taken in without
    /// moving it and reported. What the writes teach `device` (nil: the store's device id) of
    /// the others' clocks goes out with its own live heads at once (`ReplicaState.receive`).
    public func applyRemote(
        _ records: [PositionRecord], at date: Date = Date(), device: String? = nil,
        maxClockOffset: TimeInterval?
    ) async throws(StoreError) -> RemoteMerge {
        try await database.write { db in
            var clock = HybridClock(last: try Self.clock(db))
            let wall = Self.milliseconds(date)
            let maxOffset = maxClockOffset.map(HybridClock.maxOffset(seconds:))
            var wrong: [String: UInt64] = [:]
            var changed = Set<RegisterKey>()
            var estimates = try Self.clockEstimates(db)
            let estimatesBefore = estimates
            let own = try device ?? Self.state("device", db)
            let current = try db.cachedStatement(
                sql: """
                    SELECT sequence, hlc, clocksRevision FROM positionHead WHERE account = ? AND timeline = ? AND device = ?
                    """)
            let devicesOf = try db.cachedStatement(sql: "SELECT count(*) FROM positionHead WHERE account = ? AND timeline = ?")
            var devices: [RegisterKey: Int] = [:]
            var setAside: [RegisterKey: Int] = [:]
            for record in records {
                let row = try Row.fetchOne(current, arguments: [record.key.account, record.key.timeline, record.device])
                if row == nil, record.device != own {
                    // A head of one more device than a register keeps is set aside before it
                    // moves the clock or teaches anything of its writer's.
                    let held = try devices[record.key] ?? Int.fetchOne(devicesOf, arguments: [record.key.account, record.key.timeline]) ?? 0
                    if held < SyncLimits.maximumDevicesPerRegister {
                        devices[record.key] = held + 1
                    } else if let own, SyncLimits.heardOf(own, record),
                        let stranger = SyncLimits.stranger(in: try Self.register(of: record.key, db, snapshotsOf: ""), to: own)
                    {
                        // A device that heard of this one takes a stranger's place.
                        try db.cachedStatement(sql: "DELETE FROM positionHead WHERE account = ? AND timeline = ? AND device = ?")
                            .execute(arguments: [record.key.account, record.key.timeline, stranger.device])
                        devices[record.key] = held
                        setAside[record.key, default: 0] += 1
                    } else {
                        devices[record.key] = held
                        setAside[record.key, default: 0] += 1
                        continue
                    }
                }
                let observation = clock.observe(record.stamp.time, wall: wall, maxOffset: maxOffset)
                if !observation.taken { wrong[record.device] = max(wrong[record.device] ?? 0, observation.ahead) }
                if let row {
                    let held = PositionRecord.Order(
                        sequence: UInt64(bitPattern: try row.stored(0)), time: HybridTimestamp(rawValue: UInt64(bitPattern: try row.stored(1))),
                        clocksRevision: UInt64(bitPattern: try row.stored(2)))
                    guard held < record.order else { continue }
                }
                try Self.storeHead(record, db)
                changed.insert(record.key)
                // A write first seen now says how far its device's clock is ahead, at least.
                if record.device != own { estimates.observe(device: record.device, stamp: record.stamp.time, wall: wall) }
            }
            try Self.setState("hlc", String(clock.last.rawValue), db)
            if estimates != estimatesBefore {
                try Self.setClockEstimates(estimates, db)
                // What this device learned of the others' clocks goes out with its own heads at
                // once, not with its next save (`Register.clocksRepublished`).
                if let own {
                    for key in changed.sorted() {
                        guard
                            let republished = try Self.register(of: key, db, snapshotsOf: own).clocksRepublished(of: own, learned: estimates.offsets)
                        else {
                            continue
                        }
                        try Self.storeHead(republished, db)
                        try Self.enqueue(republished, kind: "clocks", at: date, db)
                    }
                }
            }
            if !wrong.isEmpty {
                var known = try Self.wrongClocks(db)
                for (device, ahead) in wrong {
                    known.removeAll { $0.device == device }
                    known.append(WrongClock(device: device, ahead: Double(ahead) / 1000, seenAt: date))
                }
                try Self.setWrongClocks(known, db)
            }
            return RemoteMerge(changed: changed.sorted(), wrongClocks: wrong, setAside: setAside)
        }
    }

    /// Everything the store knows: every register's heads.
    public func replicaState() async throws(StoreError) -> ReplicaState {
        try await database.read { db in
            var state = ReplicaState()
            for row in try Row.fetchAll(db, sql: "SELECT \(Self.headColumns) FROM positionHead") {
                if let record = Self.head(row, decodeSnapshot: true) { state.apply(record) }
            }
            return state
        }
    }

    /// The heads of one register.
    public func register(of key: RegisterKey) async throws(StoreError) -> Register {
        try await database.read { db in try Self.register(of: key, db, snapshotsOf: nil) }
    }

    /// What a restore of `scope` starts from when the app is not live on it: this device's saved
    /// positions, newest first, and the scope's position register. `RestoreStart.decide` applies
    /// the rule, with the merge policy, outside the store.
    public struct RestoreInputs: Sendable {
        public let history: [PositionSnapshot]
        public let register: Register
    }

    /// The saved positions and the register of `scope`, read together.
    public func restoreInputs(scope: StoreScope) async throws(StoreError) -> RestoreInputs {
        let key = RegisterKey(account: scope.account, timeline: scope.timeline)
        return try await database.read { db in
            RestoreInputs(history: try PositionHistoryStore.history(scope: scope, db: db), register: try Self.register(of: key, db, snapshotsOf: nil))
        }
    }

    /// The digests of the posts the heads of `scope`'s register from devices other than
    /// `device` say they read (`Register.reads(elsewhereThan:)`); every head's when `device` is nil.
    public func reads(scope: StoreScope, elsewhereThan device: String?) async throws(StoreError) -> Set<ReadDigest> {
        let key = RegisterKey(account: scope.account, timeline: scope.timeline)
        return try await database.read { db in try Self.register(of: key, db, snapshotsOf: "").reads(elsewhereThan: device ?? "") }
    }

    /// A local write waiting in the outbox: which register, and its stamp (`HLC@device`).
    public struct PendingWrite: Sendable, Equatable {
        public let id: Int64
        public let key: RegisterKey
        public let stamp: String
        public let isTombstone: Bool
    }

    /// The outbox: local writes not yet acknowledged by a transport, oldest first.
    public func pendingWrites() async throws(StoreError) -> [PendingWrite] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT id, account, timeline, kind, payload FROM syncQueue ORDER BY id").map { row in
                PendingWrite(
                    id: try row.stored(0), key: RegisterKey(account: try row.stored(1), timeline: try row.stored(2)), stamp: try row.stored(4),
                    isTombstone: try row.stored(3, as: String.self) == "tombstone")
            }
        }
    }

    /// Removes acknowledged writes from the outbox, and notes a successful round.
    public func acknowledge(_ ids: [Int64], devices: [String], at date: Date) async throws(StoreError) {
        try await database.write { db in
            for id in ids { try db.execute(sql: "DELETE FROM syncQueue WHERE id = ?", arguments: [id]) }
            try Self.setState("lastSyncAt", String(date.timeIntervalSince1970), db)
            try Self.setState("lastAttemptAt", String(date.timeIntervalSince1970), db)
            try db.execute(sql: "DELETE FROM syncState WHERE name = 'lastError'")
            let known = Set((try Self.state("devices", db) ?? "").split(separator: "\n").map(String.init)).union(devices)
            try Self.setState("devices", known.sorted().joined(separator: "\n"), db)
        }
    }

    /// Notes a failed round.
    public func recordSyncFailure(_ message: String, at date: Date) async throws(StoreError) {
        try await database.write { db in
            try Self.setState("lastError", message, db)
            try Self.setState("lastAttemptAt", String(date.timeIntervalSince1970), db)
        }
    }

    /// What the last rounds left.
    public func syncRecord() async throws(StoreError) -> SyncRecord {
        try await database.read { db in
            func date(_ name: String) throws -> Date? { try Self.state(name, db).flatMap(Double.init).map(StoredTime.since1970) }
            let devices = (try Self.state("devices", db) ?? "").split(separator: "\n").map(String.init)
            return SyncRecord(
                lastSyncAt: try date("lastSyncAt"), lastError: try Self.state("lastError", db), lastAttemptAt: try date("lastAttemptAt"),
                devices: devices, wrongClocks: try Self.wrongClocks(db))
        }
    }

    /// The grace period's cutoff for `device` at `date`: heads stamped before it are forgotten
    /// (`purgeSyncState`) and remote writes stamped before it are not taken in.
    ///
    /// It is `gracePeriod` before the newest write heard from another device (stored, or in
    /// `heard`), or before `date` when that is earlier: a device whose own clock runs far ahead
    /// would otherwise take every other device's writes for old ones and forget them all. It
    /// never moves back, so that a write forgotten with the tombstone that deleted it cannot be
    /// taken in again. Nil while no other device has been heard from: there is nothing of
    /// theirs to forget.
    public func graceCutoff(at date: Date, gracePeriod: TimeInterval, device: String, heard: [PositionRecord] = []) async throws(StoreError) -> Date?
    {
        try await database.write { db in try Self.graceCutoff(at: date, gracePeriod: gracePeriod, device: device, heard: heard, db) }
    }

    /// What a merge does first, in one transaction: takes the grace period's cutoff
    /// (`graceCutoff`), says whether this device was away longer than that (its last successful
    /// round is before the cutoff: it starts again from what the others hold), and forgets
    /// what is before it (`purgeSyncState`).
    public func applyGracePeriod(
        at date: Date, gracePeriod: TimeInterval, device: String,
        heard: [PositionRecord]
    ) async throws(StoreError) -> (cutoff: Date?, resynced: Bool) {
        try await database.write { db in
            guard let cutoff = try Self.graceCutoff(at: date, gracePeriod: gracePeriod, device: device, heard: heard, db) else { return (nil, false) }
            let resynced = try Self.state("lastSyncAt", db).flatMap(Double.init).map { Date(timeIntervalSince1970: $0) < cutoff } ?? false
            _ = try Self.purge(before: cutoff, db)
            return (cutoff, resynced)
        }
    }

    static func graceCutoff(at date: Date, gracePeriod: TimeInterval, device: String, heard: [PositionRecord], _ db: Database) throws -> Date? {
        let stored = try state("graceCutoff", db).flatMap { UInt64($0) }
        var newest = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT MAX(hlc) FROM positionHead WHERE device <> ? AND hlc >= 0"),
            arguments: [device]
        ).map { HybridTimestamp(rawValue: UInt64($0)).milliseconds }
        for record in heard where record.device != device { newest = max(newest ?? 0, record.stamp.time.milliseconds) }
        guard let newest else { return stored.map { Date(timeIntervalSince1970: Double($0) / 1000) } }
        let reference = min(milliseconds(date), newest)
        let grace = UInt64(max(0, min(gracePeriod * 1000, 1e15)))
        let cutoff = max(stored ?? 0, reference > grace ? reference - grace : 0)
        if cutoff != stored { try setState("graceCutoff", String(cutoff), db) }
        return Date(timeIntervalSince1970: Double(cutoff) / 1000)
    }

    /// Forgets every head stamped before `cutoff` (now minus the grace period): positions and
    /// tombstones alike, and outbox entries never sent. Every device does the same and ignores
    /// older writes it pulls, so replicas still converge, on the writes of the grace period; and
    /// a tombstone is never purged while a position it deleted could still arrive. Local
    /// restores read the position history, which this leaves alone. Returns how many heads
    /// were forgotten.
    @discardableResult
    public func purgeSyncState(before cutoff: Date) async throws(StoreError) -> Int {
        try await database.write { db in try Self.purge(before: cutoff, db) }
    }

    static func purge(before cutoff: Date, _ db: Database) throws -> Int {
        let limit = Int64(bitPattern: HybridTimestamp(milliseconds: milliseconds(cutoff), counter: 0).rawValue)
        // Stamps from the year 292278994 on are negative as SQLite integers: never purged.
        try db.cachedStatement(sql: "DELETE FROM positionHead WHERE hlc >= 0 AND hlc < ?").execute(arguments: [limit])
        let removed = db.changesCount
        try db.cachedStatement(sql: "DELETE FROM syncQueue WHERE enqueuedAt < ?").execute(arguments: [cutoff.timeIntervalSince1970])
        return removed
    }
}
