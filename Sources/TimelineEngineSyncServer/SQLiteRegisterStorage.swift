#if SyncServer
import Foundation
import GRDB

/// The server's storage in one SQLite file, through GRDB: nothing to install, the default.
///
/// Heads are merged in the database: `INSERT … ON CONFLICT … DO UPDATE … WHERE
/// excluded.headKey > positionHead.headKey`, one statement per head, in the request's
/// transaction, which also moves the user's change counter on and stamps each changed head
/// with it (so a long-poll answers only what changed). SQLite has one writer at a time, so a
/// server on it is one process; PostgreSQL serves several.
///
/// Requests' merges are committed in groups (`GroupCommit`): the merges that arrive while a
/// transaction commits go into the next one, each in a savepoint of its own, so one request's
/// failure rolls back that request alone.
public final class SQLiteRegisterStorage: RegisterStorage {
    private let pool: DatabasePool
    public let path: String
    /// Copies the WAL back into the database file after commits, off the writer.
    let checkpoint: BackgroundCheckpoint
    private let merges: GroupCommit<(heads: [StoredHead], user: StoredUser, token: [UInt8]?, maxHeads: Int?), (changed: Int, cursor: Int64)>
    /// The time a head is stored at, for retention (`dropHeads(writtenBefore:)`).
    private let now: @Sendable () -> Date

    /// Opens (creating if needed) the database at `path` and brings its schema up to date;
    /// `now` is the time heads are stored at.
    public convenience init(path: String, now: @escaping @Sendable () -> Date = Date.init) throws {
        try self.init(path: path, checkpointInterval: BackgroundCheckpoint.defaultInterval, now: now)
    }

    /// The same, with checkpoints at most once per `checkpointInterval` while commits come in.
    init(path: String, checkpointInterval: Duration, now: @escaping @Sendable () -> Date = Date.init) throws {
        self.path = path
        self.now = now
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "timeline-sync-server"
        // Checkpoints run on a connection of their own (`BackgroundCheckpoint`), not in a commit.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        do {
            let pool = try DatabasePool(path: path, configuration: configuration)
            try Self.migrator.migrate(pool)
            self.pool = pool
            let checkpoint = try BackgroundCheckpoint(path: path, interval: checkpointInterval)
            self.checkpoint = checkpoint
            merges = GroupCommit { jobs in
                try await Self.write(pool, checkpoint) { db in
                    jobs.map { job in
                        Result {
                            var result = (changed: 0, cursor: Int64(0))
                            try db.inSavepoint {
                                result = try Self.merge(job.heads, user: job.user, token: job.token, maxHeads: job.maxHeads, at: now(), db)
                                return .commit
                            }
                            return result
                        }
                    }
                }
            }
        } catch {
            throw StorageError("\(path): cannot open the server database: \(error)")
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("server-v1") { db in
            // Users and their tokens; each device's latest write per register (its head), with
            // the change counter that last changed it.
            try db.execute(
                sql: """
                    CREATE TABLE syncUser (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, version INTEGER NOT NULL DEFAULT 0,
                                           createdAt REAL NOT NULL);
                    CREATE TABLE token (id INTEGER PRIMARY KEY, userId INTEGER NOT NULL REFERENCES syncUser(id), hash BLOB NOT NULL UNIQUE,
                                        createdAt REAL NOT NULL, revokedAt REAL);
                    CREATE TABLE positionHead (userId INTEGER NOT NULL, account TEXT NOT NULL, timeline TEXT NOT NULL, device TEXT NOT NULL,
                                               headKey BLOB NOT NULL, changedAt INTEGER NOT NULL, record TEXT NOT NULL,
                                               PRIMARY KEY (userId, account, timeline, device)) WITHOUT ROWID;
                    CREATE INDEX positionHeadChanges ON positionHead (userId, changedAt);
                    """)
        }
        migrator.registerMigration("server-v2-data-rights") { db in
            // When each head was stored (retention drops devices no longer written), when a
            // user was erased, and what an erasure leaves of each device (`ErasedDevice`). Heads
            // kept from before count as written now, so that none is dropped at the upgrade.
            try db.execute(
                sql: """
                    ALTER TABLE positionHead ADD COLUMN writtenAt REAL NOT NULL DEFAULT 0;
                    UPDATE positionHead SET writtenAt = ?;
                    ALTER TABLE syncUser ADD COLUMN erasedAt REAL;
                    CREATE TABLE erasedDevice (userId INTEGER NOT NULL, device BLOB NOT NULL, headKey BLOB NOT NULL,
                                               PRIMARY KEY (userId, device)) WITHOUT ROWID;
                    """, arguments: [Date().timeIntervalSince1970])
        }
        return migrator
    }

    public var remoteEvents: AsyncStream<RemoteEvent>? { nil }

    public func user(forTokenHash hash: [UInt8]) async throws -> StoredUser? {
        try await pool.read { db in
            try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT syncUser.id, syncUser.name FROM token JOIN syncUser ON syncUser.id = token.userId
                        WHERE token.hash = ? AND token.revokedAt IS NULL
                        """), arguments: [Data(hash)]
            ).map { StoredUser(id: try $0.decode(Int64.self, atIndex: 0), name: try $0.decode(String.self, atIndex: 1)) }
        }
    }

    /// A write transaction on the writer, then a background checkpoint if one is due: every
    /// write of the storage goes through here.
    private static func write<T: Sendable>(
        _ pool: DatabasePool, _ checkpoint: BackgroundCheckpoint,
        _ updates: @Sendable (Database) throws -> T
    ) async throws -> T {
        defer { checkpoint.committed() }
        return try await pool.write(updates)
    }

    public func addToken(hash: [UInt8], user: String, at date: Date) async throws -> Int64 {
        try await Self.write(pool, checkpoint) { db in
            try db.execute(
                sql: "INSERT INTO syncUser (name, createdAt) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                arguments: [user, date.timeIntervalSince1970])
            let userId = try Int64.fetchOne(db, sql: "SELECT id FROM syncUser WHERE name = ?", arguments: [user])!
            try db.execute(
                sql: "INSERT INTO token (userId, hash, createdAt) VALUES (?, ?, ?)",
                arguments: [userId, Data(hash), date.timeIntervalSince1970])
            return db.lastInsertedRowID
        }
    }

    public func revokeToken(id: Int64, at date: Date) async throws -> Bool {
        try await Self.write(pool, checkpoint) { db in
            try db.execute(sql: "UPDATE token SET revokedAt = ? WHERE id = ? AND revokedAt IS NULL", arguments: [date.timeIntervalSince1970, id])
            return db.changesCount > 0
        }
    }

    public func tokens() async throws -> [StoredToken] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT token.id, syncUser.name, token.createdAt, token.revokedAt FROM token JOIN syncUser ON syncUser.id = token.userId
                    ORDER BY token.id
                    """
            ).map { row in
                StoredToken(
                    id: try row.decode(Int64.self, atIndex: 0), user: try row.decode(String.self, atIndex: 1),
                    createdAt: Date(timeIntervalSince1970: try row.decode(Double.self, atIndex: 2)),
                    revokedAt: try row.decode(Double?.self, atIndex: 3).map(Date.init(timeIntervalSince1970:)))
            }
        }
    }

    /// A user's version: the cursor of its last change. Every statement a request runs is
    /// cached on its connection (`cachedStatement`), so no request prepares one again.
    private static let version = "SELECT version FROM syncUser WHERE id = ?"

    public func read(user: StoredUser, since: Int64?) async throws -> (cursor: Int64, records: [String]) {
        try await pool.read { db in
            let cursor = try Int64.fetchOne(db.cachedStatement(sql: Self.version), arguments: [user.id]) ?? 0
            let records = try String.fetchAll(
                db.cachedStatement(sql: "SELECT record FROM positionHead WHERE userId = ? AND changedAt > ?"),
                arguments: [user.id, since ?? -1])
            return (cursor, records)
        }
    }

    public func cursor(user: StoredUser) async throws -> Int64 {
        try await pool.read { db in try Int64.fetchOne(db.cachedStatement(sql: Self.version), arguments: [user.id]) ?? 0 }
    }

    public func merge(_ heads: [StoredHead], user: StoredUser, token: [UInt8]?, maxHeads: Int?) async throws -> (changed: Int, cursor: Int64) {
        try await merges.run((heads, user, token, maxHeads))
    }

    /// One request's merge, in the group's transaction. A head an erasure removed (no later
    /// than its device's place in the tombstone) is not taken in again, nor a write in the clear
    /// its device made before the erasure (a save made offline); nothing is, when the request's
    /// token is gone (the transaction sees every erasure and revocation committed), or when it
    /// would leave the user more than `maxHeads` heads (counted in the transaction, exactly).
    private static func merge(
        _ heads: [StoredHead], user: StoredUser, token: [UInt8]?, maxHeads: Int?, at date: Date, _ db: Database
    ) throws -> (changed: Int, cursor: Int64) {
        if let token,
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM token WHERE hash = ? AND userId = ? AND revokedAt IS NULL"),
                arguments: [Data(token), user.id]) == nil
        {
            throw TokenGone()
        }
        // The user's counter and last erasure, in one read of their row.
        let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT version, erasedAt FROM syncUser WHERE id = ?"), arguments: [user.id])
        let current = try row?.decode(Int64.self, atIndex: 0) ?? 0
        let erasedAt = try row?.decode(Double?.self, atIndex: 1)
        var erased: [Data: Data] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: "SELECT device, headKey FROM erasedDevice WHERE userId = ?"), arguments: [user.id]) {
            erased[try row.decode(Data.self, atIndex: 0)] = try row.decode(Data.self, atIndex: 1)
        }
        let upsert = try db.cachedStatement(
            sql: """
                INSERT INTO positionHead (userId, account, timeline, device, headKey, changedAt, record, writtenAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (userId, account, timeline, device) DO UPDATE SET headKey = excluded.headKey, changedAt = excluded.changedAt,
                    record = excluded.record, writtenAt = excluded.writtenAt
                WHERE excluded.headKey > positionHead.headKey
                """)
        let exists = try db.cachedStatement(sql: "SELECT 1 FROM positionHead WHERE userId = ? AND account = ? AND timeline = ? AND device = ?")
        var changed = 0
        var added = 0
        for head in heads {
            if let erasedAt, let madeAt = head.madeAt, Double(madeAt) < erasedAt * 1000 { continue }
            if !erased.isEmpty, let bound = erased[Data(ErasedDevice.digest(user: user.id, device: head.device))],
                !bound.lexicographicallyPrecedes(head.headKey)
            {
                continue
            }
            if maxHeads != nil, try Int.fetchOne(exists, arguments: [user.id, head.account, head.timeline, head.device]) == nil { added += 1 }
            try upsert.execute(arguments: [
                user.id, head.account, head.timeline, head.device, Data(head.headKey), current + 1, head.json, date.timeIntervalSince1970,
            ])
            changed += db.changesCount
        }
        guard changed > 0 else { return (0, current) }
        if let maxHeads, added > 0 {
            let held = try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM positionHead WHERE userId = ?"), arguments: [user.id]) ?? 0
            if held > maxHeads { throw QuotaFull(held: held - added, adding: added, limit: maxHeads) }
        }
        try db.cachedStatement(sql: "UPDATE syncUser SET version = ? WHERE id = ?").execute(arguments: [current + 1, user.id])
        return (changed, current + 1)
    }

    public func user(named name: String) async throws -> StoredUser? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT id, name FROM syncUser WHERE name = ?", arguments: [name]).map {
                StoredUser(id: try $0.decode(Int64.self, atIndex: 0), name: try $0.decode(String.self, atIndex: 1))
            }
        }
    }

    public func export(user: StoredUser) async throws -> UserExport {
        try await pool.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT createdAt, erasedAt FROM syncUser WHERE id = ?", arguments: [user.id])
            let tokens = try Row.fetchAll(db, sql: "SELECT id, createdAt, revokedAt FROM token WHERE userId = ? ORDER BY id", arguments: [user.id])
                .map { row in
                    StoredToken(
                        id: try row.decode(Int64.self, atIndex: 0), user: user.name,
                        createdAt: Date(timeIntervalSince1970: try row.decode(Double.self, atIndex: 1)),
                        revokedAt: try row.decode(Double?.self, atIndex: 2).map(Date.init(timeIntervalSince1970:)))
                }
            var registers: [UserExport.Register] = []
            let heads = try Row.fetchCursor(
                db, sql: "SELECT account, timeline, record FROM positionHead WHERE userId = ? ORDER BY account, timeline, device",
                arguments: [user.id])
            while let head = try heads.next() {
                let (account, timeline) = (try head.decode(String.self, atIndex: 0), try head.decode(String.self, atIndex: 1))
                let record = try head.decode(String.self, atIndex: 2)
                if let last = registers.last, last.account == account, last.timeline == timeline {
                    registers[registers.count - 1].heads.append(record)
                } else {
                    registers.append(UserExport.Register(account: account, timeline: timeline, heads: [record]))
                }
            }
            return UserExport(
                user: user.name, createdAt: Date(timeIntervalSince1970: try row?.decode(Double.self, atIndex: 0) ?? 0), tokens: tokens,
                registers: registers, erasedAt: try row?.decode(Double?.self, atIndex: 1).map(Date.init(timeIntervalSince1970:)))
        }
    }

    public func erase(user: StoredUser, at date: Date) async throws -> UserErasure {
        try await Self.write(pool, checkpoint) { db in
            let keep = try db.cachedStatement(
                sql: """
                    INSERT INTO erasedDevice (userId, device, headKey) VALUES (?, ?, ?)
                    ON CONFLICT (userId, device) DO UPDATE SET headKey = excluded.headKey WHERE excluded.headKey > erasedDevice.headKey
                    """)
            let devices = try Row.fetchAll(
                db, sql: "SELECT device, MAX(headKey) FROM positionHead WHERE userId = ? GROUP BY device", arguments: [user.id])
            for row in devices {
                try keep.execute(arguments: [
                    user.id, Data(ErasedDevice.digest(user: user.id, device: try row.decode(String.self, atIndex: 0))),
                    try row.decode(Data.self, atIndex: 1),
                ])
            }
            let registers =
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM (SELECT DISTINCT account, timeline FROM positionHead WHERE userId = ?)", arguments: [user.id]) ?? 0
            try db.execute(sql: "DELETE FROM positionHead WHERE userId = ?", arguments: [user.id])
            let heads = db.changesCount
            let hashes = try Data.fetchAll(db, sql: "SELECT hash FROM token WHERE userId = ?", arguments: [user.id]).map { [UInt8]($0) }
            try db.execute(sql: "DELETE FROM token WHERE userId = ?", arguments: [user.id])
            try db.execute(
                sql: "UPDATE syncUser SET version = version + 1, erasedAt = ? WHERE id = ?", arguments: [date.timeIntervalSince1970, user.id])
            let cursor = try Int64.fetchOne(db, sql: Self.version, arguments: [user.id]) ?? 0
            return UserErasure(
                registers: registers, heads: heads, tokens: hashes.count, devices: devices.count, tokenHashes: hashes, cursor: cursor)
        }
    }

    public func dropHeads(writtenBefore cutoff: Date) async throws -> Int {
        try await Self.write(pool, checkpoint) { db in
            try db.execute(
                sql: """
                    DELETE FROM positionHead WHERE (userId, device) IN
                        (SELECT userId, device FROM positionHead GROUP BY userId, device HAVING MAX(writtenAt) < ?)
                    """, arguments: [cutoff.timeIntervalSince1970])
            return db.changesCount
        }
    }

    /// One process writes to the file: there is no one else to tell.
    public func announce(_ changes: [ChangeAnnouncement]) async throws {}

    public func check() async throws {
        _ = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT 1") }
    }
}
#endif
