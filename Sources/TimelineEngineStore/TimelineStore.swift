import Foundation
import GRDB
import Logging
import TimelineEngineCacheModel
import TimelineEngineCore
import TimelineEngineLogging
import TimelineEngineStrategyKit
import TimelineEngineSupport

/// The engine's state in one SQLite file (through GRDB, in WAL mode), in three parts over one
/// database pool: the timeline cache (`timelines`), the position history, read posts and last
/// restoration (`positions`), and cross-device sync's heads, clock and outbox (`sync`).
///
/// Every call is asynchronous and runs on GRDB's queues, never on the caller's thread or the
/// cooperative pool. Every write is one transaction, so a process killed mid-write loses
/// nothing it committed, and the file is consistent when reopened. A file that is not SQLite, a
/// corrupt database, a schema newer than this version knows, or a location that cannot be
/// written gives a `StoreError` naming the file; the file is never overwritten or deleted.
public final class TimelineStore: Sendable {
    public var path: String { database.path }
    /// Why the store was opened for reading only (a read-only file system, a full disk), or nil
    /// when it can be changed.
    public var readOnlyReason: String? { database.readOnlyReason }
    /// What became of the file this store opened, when its path no longer names it: deleted or
    /// moved away, or replaced by another file (which this store does not read or write); nil
    /// while the path names the file opened. A long-running process (`engine sync watch`) checks
    /// it, since what it writes would otherwise go where no one reads.
    public var fileProblem: String? {
        guard let opened = database.identity else { return nil }
        guard let now = FileSystem.identity(path) else { return "the store's file is gone (deleted or moved away)" }
        return now == opened ? nil : "the store's file was replaced by another (moved or copied over it)"
    }

    /// The cached timelines and their kept indexes.
    public let timelines: TimelineCacheStore
    /// The saved positions, read posts and last restorations.
    public let positions: PositionHistoryStore
    /// The device id, the registers' heads, the clock and the outbox.
    public let sync: SyncStateStore
    let database: StoreDatabase

    /// Opens the store at `path`, creating it (and its tables) when the file does not exist.
    ///
    /// Several processes may open one store at once: each waits up to `busyTimeout` for the
    /// others, also where SQLite does not wait by itself (turning a new file to WAL mode), and a
    /// migration that another process applied first is taken as done.
    ///
    /// With `create` false, a path with no file is `StoreError.Kind.missing` ("no such store"):
    /// tools that only read a store must not leave an empty one behind a mistyped path.
    ///
    /// The store logs its migrations, saves and maintenance to `loggers` (by default swift-log's
    /// loggers of the cache and position categories); an app passes its own `Logger` as
    /// `EngineLoggers(logger)`.
    public init(path: String, create: Bool = true, loggers: EngineLoggers = EngineLoggers()) async throws(StoreError) {
        database = try await StoreDatabase.open(path: path, create: create, logger: loggers.cache)
        timelines = TimelineCacheStore(database: database, loggers: loggers)
        positions = PositionHistoryStore(database: database, loggers: loggers)
        sync = SyncStateStore(database: database, loggers: loggers)
    }

    /// Where the store's records go.
    public var loggers: EngineLoggers { timelines.loggers }

    /// Writes what the store holds into its file and closes it: a later call on it (or on another
    /// `TimelineStore` of the same file opened before) throws "the store was closed", and the file
    /// can be opened anew.
    public func close() async {
        let database = self.database
        await OffPool.run { database.close() }
    }

    /// Closes every store this process opened, so that what they wrote is checkpointed into their
    /// files: a process that exits at once calls it last. A store closed is not used again.
    public static func closeAll() async {
        await StoreDatabase.closeAll()
    }

    /// How long a connection waits for another process's lock before it reports
    /// "database is locked".
    public static let busyTimeout: TimeInterval = 5

    /// SQLite's integrity check of the whole file: the problems it finds, none when the store is sound.
    public func integrityProblems() async throws(StoreError) -> [String] {
        try await database.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" } }
    }

    /// What the store holds, for `engine debug-export`.
    public struct Statistics: Sendable, Equatable {
        public var scopes: [StoreScope] = []
        public var cachedPosts = 0
        public var cachedBytes = 0
        public var oldestCachedAt: Date?
        public var snapshots = 0
        public var readPosts = 0
        public var timelineHits = 0
        public var timelineMisses = 0
        /// The migrations applied, oldest first.
        public var migrations: [String] = []

        /// Hits over reads; nil before the first read.
        public var hitRatio: Double? {
            let reads = timelineHits + timelineMisses
            return reads > 0 ? Double(timelineHits) / Double(reads) : nil
        }
    }

    /// What the store holds: its scopes, rows, cache hits and misses, and migrations.
    public func statistics() async throws(StoreError) -> Statistics {
        try await database.read { db in
            var statistics = Statistics()
            let scopeSQL =
                "SELECT account, timeline FROM timelineState UNION SELECT account, timeline FROM positionHistory "
                + "UNION SELECT account, timeline FROM readPost ORDER BY account, timeline"
            statistics.scopes = try Row.fetchAll(db, sql: scopeSQL).map { StoreScope(account: $0["account"], timeline: $0["timeline"]) }
            let cached = try Row.fetchOne(
                db, sql: "SELECT COUNT(*) AS count, COALESCE(SUM(bytes), 0) AS bytes, MIN(storedAt) AS oldest FROM cachedPost")
            statistics.cachedPosts = cached?["count"] ?? 0
            statistics.cachedBytes = cached?["bytes"] ?? 0
            let oldest: Double? = cached?["oldest"]
            statistics.oldestCachedAt = oldest.map(StoredTime.since1970)
            statistics.snapshots = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM positionHistory") ?? 0
            statistics.readPosts = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM readPost") ?? 0
            statistics.timelineHits = try Int.fetchOne(db, sql: "SELECT value FROM storeCounter WHERE name = 'timelineHits'") ?? 0
            statistics.timelineMisses = try Int.fetchOne(db, sql: "SELECT value FROM storeCounter WHERE name = 'timelineMisses'") ?? 0
            statistics.migrations = try StoreSchema.migrator.appliedMigrations(db)
            return statistics
        }
    }

    /// Row counts per table, for debugging and tests.
    public func counts() async throws(StoreError) -> [String: Int] {
        try await database.read { db in
            var result: [String: Int] = [:]
            for table in ["cachedPost", "positionHistory", "readPost", "lastRestoration", "syncQueue"] {
                result[table] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
            }
            return result
        }
    }
}
