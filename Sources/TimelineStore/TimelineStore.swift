import CacheModel
import Foundation
import GRDB
import JSONText
import Logging
import StrategyKit
import TimelineCore
import TimelineFormats
import TimelineLogging
import ValueTree

/// The engine's state in one SQLite file (through GRDB, in WAL mode): per account and timeline,
/// the cached posts, the position history, the read-post ids and the last restoration, plus a
/// table reserved for the sync queue.
///
/// Every write is one transaction, so a process killed mid-write loses nothing it committed,
/// and the file is consistent when reopened. A file that is not SQLite, a corrupt database, a
/// schema newer than this version knows, or a location that cannot be written gives a
/// `StoreError` naming the file; the file is never overwritten or deleted.
public final class TimelineStore: Sendable {
    /// What a timeline looked like when it was cached.
    public struct CachedTimeline: Sendable, Equatable {
        public var posts: [Post]
        /// When the source last refreshed it; nil if it never did.
        public var refreshedAt: Date?
        public var viewportHeight: Double?
        /// The ids of the posts with a gap below them (`TimelineGap`).
        public var gapsBelow: Set<String> = []
        /// Which version of the cached posts these are: a random number drawn whenever they
        /// change, nil in a store that has not written them since it was upgraded. A text
        /// index kept in the store is used only on the revision it was made from.
        public var revision: Int64?

        public init(posts: [Post], refreshedAt: Date? = nil, viewportHeight: Double? = nil, gapsBelow: Set<String> = [], revision: Int64? = nil) {
            self.posts = posts
            self.refreshedAt = refreshedAt
            self.viewportHeight = viewportHeight
            self.gapsBelow = gapsBelow
            self.revision = revision
        }

        /// Where posts are missing, top to bottom.
        public var gaps: [TimelineGap] { TimelineGap.gaps(in: posts, below: gapsBelow) }

        /// The posts as a `Timeline`, in the cached viewport's height (the default when none was cached).
        public var timeline: Timeline {
            viewportHeight.map { Timeline(posts: posts, viewportHeight: $0) } ?? Timeline(posts: posts)
        }
    }

    public let path: String
    private let pool: DatabasePool
    /// Why the store was opened for reading only (a read-only file system, a full disk), or nil
    /// when it can be changed.
    public let readOnlyReason: String?

    /// Opens the store at `path`, creating it (and its tables) when the file does not exist.
    ///
    /// Several processes may open one store at once: each waits up to `busyTimeout` for the
    /// others, also where SQLite does not wait by itself (turning a new file to WAL mode), and a
    /// migration that another process applied first is taken as done.
    ///
    /// With `create` false, a path with no file is `StoreError.Kind.missing` ("no such store"):
    /// tools that only read a store must not leave an empty one behind a mistyped path.
    public init(path: String, create: Bool = true) throws(StoreError) {
        self.path = path
        if !create, !FileManager.default.fileExists(atPath: path) {
            throw StoreError(path: path, "no such store", kind: .missing)
        }
        try TimelineStore.checkBeforeOpening(path)
        // On a read-only file system nothing can change the file, and SQLite cannot make the
        // files it keeps beside a store (`-shm`, `-wal`) even to read it: the store is opened
        // immutable, for reading only, and a change says why it cannot be made. So it is on a
        // disk too full for them: no process can write it there either.
        let exists = FileManager.default.fileExists(atPath: path)
        if exists, FileSystem.isReadOnly(path) {
            readOnlyReason = "the store is on a read-only file system: it can be read there, not changed"
            pool = try TimelineStore.openImmutable(path)
            return
        }
        do {
            pool = try TimelineStore.openForWriting(path)
            readOnlyReason = nil
        } catch  where exists && error.isDiskFull {
            readOnlyReason = StoreError.diskFull
            pool = try TimelineStore.openImmutable(path)
        }
    }

    /// Opens the store at `path` for reading and writing, migrating it to the current schema.
    private static func openForWriting(_ path: String) throws(StoreError) -> DatabasePool {
        try TimelineStore.retryingWhileBusy(path: path) {
            try TimelineStore.inspectExisting(path)
            let pool = try DatabasePool(path: path, configuration: TimelineStore.connectionConfiguration(readonly: false))
            // Another process may apply a migration between our check and our change: ours then
            // fails harmlessly, and migrating again goes on from what it applied.
            var attempts = 0
            let applied = (try? pool.read(StoreSchema.migrator.appliedMigrations)) ?? []
            while true {
                do {
                    try StoreSchema.migrator.migrate(pool)
                    TimelineStore.logMigrations(path: path, before: applied, after: StoreSchema.migrator.migrations)
                    break
                } catch {
                    attempts += 1
                    if (try? pool.read(StoreSchema.migrator.hasCompletedMigrations)) == true { break }
                    guard attempts < 20 else { throw error }
                    Thread.sleep(forTimeInterval: 0.01 * Double(attempts))
                }
            }
            return pool
        }
    }

    /// Opens the store at `path` immutable, for reading only; it must have the current schema.
    private static func openImmutable(_ path: String) throws(StoreError) -> DatabasePool {
        let immutable = immutableURI(path)
        return try retryingWhileBusy(path: path) {
            try inspectExisting(path, openedAs: immutable)
            let pool = try DatabasePool(path: immutable, configuration: connectionConfiguration(readonly: true))
            guard (try? pool.read(StoreSchema.migrator.hasCompletedMigrations)) == true else {
                throw StoreError(
                    path: path,
                    "the store cannot be written here and was written by an earlier version of TimelineEngine: it must be upgraded where it can be written",
                    kind: .unusablePath)
            }
            return pool
        }
    }

    /// Runs `body` again, after a short random pause, while it fails because another process
    /// holds a lock, for up to `busyTimeout` in all.
    static func retryingWhileBusy<T>(path: String, _ body: () throws -> T) throws(StoreError) -> T {
        let deadline = Date().addingTimeInterval(busyTimeout)
        while true {
            do {
                return try body()
            } catch let error as StoreError {
                throw error
            } catch let error as DatabaseError where [.SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode) && Date() < deadline {
                Thread.sleep(forTimeInterval: Double.random(in: 0.005...0.025))
            } catch {
                throw describe(error, path: path)
            }
        }
    }

    /// How long a connection waits for another process's lock before it reports
    /// "database is locked".
    public static let busyTimeout: TimeInterval = 5

    /// The settings of every connection the store opens: each waits `busyTimeout` for locks
    /// held by other processes, the read-only inspection as well as the pool.
    static func connectionConfiguration(readonly: Bool) -> Configuration {
        var configuration = Configuration()
        configuration.readonly = readonly
        configuration.busyMode = .timeout(busyTimeout)
        return configuration
    }

    /// Refuses a file that is not SQLite before SQLite can touch it, and a new file in a
    /// directory that cannot be written.
    static func checkBeforeOpening(_ path: String) throws(StoreError) {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw StoreError(path: path, "not a regular file: it is a directory", kind: .unusablePath) }
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw StoreError(path: path, "cannot read the store: permission denied", kind: .unusablePath)
            }
            let header = (try? handle.read(upToCount: 16)) ?? Data()
            try? handle.close()
            if !header.isEmpty, header != Data("SQLite format 3\0".utf8) {
                throw StoreError(
                    path: path, "not a SQLite database (it does not start with \"SQLite format 3\"); it is left as it is", kind: .notAStore)
            }
        } else {
            let directory = (path as NSString).deletingLastPathComponent
            let parent = directory.isEmpty ? "." : directory
            guard manager.fileExists(atPath: parent) else {
                throw StoreError(path: path, "cannot create the store: \(parent) does not exist", kind: .unusablePath)
            }
            guard manager.isWritableFile(atPath: parent) else {
                throw StoreError(path: path, "cannot create the store: the directory \(parent) is not writable", kind: .unusablePath)
            }
        }
    }

    /// Looks at an existing file read-only before anything can write to it: a SQLite file of
    /// another application, a store from a newer version and a damaged database are refused
    /// with the file untouched.
    static func inspectExisting(_ path: String, openedAs location: String? = nil) throws {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > 0 else { return }
        do {
            let queue = try DatabaseQueue(path: location ?? path, configuration: connectionConfiguration(readonly: true))
            defer { try? queue.close() }
            try queue.read { db in
                let tables = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
                if !tables.isEmpty, !tables.contains("grdb_migrations") {
                    throw StoreError(
                        path: path,
                        "a SQLite database of something else, not a TimelineEngine store (its tables: \(tables.prefix(5).joined(separator: ", "))); it is left as it is",
                        kind: .notAStore)
                }
                if !tables.isEmpty, try StoreSchema.migrator.hasBeenSuperseded(db) {
                    throw StoreError(
                        path: path,
                        "the store was written by a newer version of TimelineEngine (its schema has changes this version does not know); it is left as it is",
                        kind: .incompatible)
                }
                let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                if check != ["ok"] {
                    throw StoreError(
                        path: path, "the database is damaged (quick_check: \(check.prefix(3).joined(separator: "; "))); it is left as it is",
                        kind: .incompatible)
                }
            }
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError where [.SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode) {
            throw error
        } catch {
            throw describe(error, path: path)
        }
    }

    static func describe(_ error: any Error, path: String) -> StoreError {
        if let error = error as? StoreError { return error }
        guard let error = error as? DatabaseError else { return StoreError(path: path, "\(error)") }
        switch error.resultCode {
        case .SQLITE_NOTADB: return StoreError(path: path, "not a SQLite database; it is left as it is", kind: .notAStore)
        case .SQLITE_CORRUPT:
            return StoreError(path: path, "the database is damaged (\(error.message ?? "corrupt")); it is left as it is", kind: .incompatible)
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            return StoreError(path: path, "cannot open the store for writing (\(error.message ?? "\(error.resultCode)"))", kind: .unusablePath)
        case .SQLITE_FULL: return StoreError(path: path, StoreError.diskFull)
        case .SQLITE_IOERR where FileSystem.isFull(path):
            // A write that failed for want of space, as SQLite reports it from some places.
            return StoreError(path: path, StoreError.diskFull)
        default: return StoreError(path: path, error.message ?? "\(error)")
        }
    }

    /// `path` as an SQLite URI that opens it immutable: read without locks, `-shm` or `-wal`.
    static func immutableURI(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
    }

    func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        if let readOnlyReason {
            throw StoreError(path: path, readOnlyReason, kind: readOnlyReason == StoreError.diskFull ? .failed : .unusablePath)
        }
        do {
            return try pool.write(body)
        } catch {
            throw TimelineStore.describe(error, path: path)
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.read(body)
        } catch {
            throw TimelineStore.describe(error, path: path)
        }
    }

    // MARK: Timelines

    /// Replaces the cached timeline of `scope`. Every post counts as stored at `refreshedAt`,
    /// except those in `unconfirmed` (cached posts the source did not speak for), which keep
    /// the time they were first stored and last used, so that age-based policies still see
    /// their real age. A gap lies below each post in `gapsBelow`.
    public func saveTimeline(
        _ posts: [Post], scope: StoreScope, viewportHeight: Double? = nil, refreshedAt: Date,
        unconfirmed: Set<String> = [], gapsBelow: Set<String> = []
    ) throws(StoreError) {
        try write { db in
            try Self.replaceTimeline(
                posts, scope: scope, viewportHeight: viewportHeight, refreshedAt: refreshedAt, unconfirmed: unconfirmed,
                gapsBelow: gapsBelow, db: db)
        }
    }

    /// What `updateTimeline` writes: the new posts, the ids the source did not speak for, and
    /// the posts with a gap below them.
    public struct TimelineUpdate: Sendable {
        public var posts: [Post]
        public var unconfirmed: Set<String>
        public var gapsBelow: Set<String>
        public var viewportHeight: Double?
        /// Posts the cache policy must not evict (the reader's place), when the update is trimmed.
        public var kept: Set<String>

        public init(
            posts: [Post], unconfirmed: Set<String> = [], gapsBelow: Set<String> = [], viewportHeight: Double? = nil,
            kept: Set<String> = []
        ) {
            self.posts = posts
            self.unconfirmed = unconfirmed
            self.gapsBelow = gapsBelow
            self.viewportHeight = viewportHeight
            self.kept = kept
        }
    }

    /// Reads the cached timeline of `scope` and replaces it with what `change` makes of it, in
    /// one transaction: two loads of one timeline at once each merge into what the other
    /// stored, and neither loses the other's posts. `change` returns nil to leave it as it is.
    public func updateTimeline<T>(
        scope: StoreScope, refreshedAt: Date,
        _ change: (CachedTimeline?) -> (update: TimelineUpdate?, result: T)
    ) throws(StoreError) -> T {
        try updateTimeline(scope: scope, refreshedAt: refreshedAt, trimmedBy: nil, change).result
    }

    /// `updateTimeline(scope:refreshedAt:_:)`, with what `policy` evicts from the new timeline
    /// (except the update's `kept`) left out before it is written, a gap marked above each run of
    /// evicted posts, as `trimTimeline` does: a refresh that brings many posts writes only what
    /// the cache keeps. Returns `change`'s result and the evicted ids.
    public func updateTimeline<T>(
        scope: StoreScope, refreshedAt: Date, trimmedBy policy: (any CachePolicy)?,
        _ change: (CachedTimeline?) -> (update: TimelineUpdate?, result: T)
    ) throws(StoreError)
        -> (result: T, evicted: [String])
    {
        try write { db in
            let cached = try Self.cachedTimeline(scope: scope, db: db)
            let (update, result) = change(cached)
            guard let update else { return (result, []) }
            var rows = try Self.cacheRows(update.posts, scope: scope, refreshedAt: refreshedAt, unconfirmed: update.unconfirmed, db: db)
            var gapsBelow = update.gapsBelow
            var evicted: [String] = []
            if let policy {
                let lastRead = try Self.lastRead(scope: scope, db: db)
                let entries = rows.map {
                    CacheEntry(
                        key: $0.post.id, storedAt: StoredTime.since1970($0.storedAt),
                        lastAccess: StoredTime.since1970(max($0.lastAccess, lastRead)), bytes: $0.bytes)
                }
                evicted = policy.evictions(from: entries, now: refreshedAt).filter { !update.kept.contains($0) }
                let leaving = Set(evicted)
                if !leaving.isEmpty {
                    for (upper, lower) in zip(rows, rows.dropFirst()) where !leaving.contains(upper.post.id) && leaving.contains(lower.post.id) {
                        gapsBelow.insert(upper.post.id)
                    }
                    rows.removeAll { leaving.contains($0.post.id) }
                }
            }
            try Self.writeTimeline(
                rows, scope: scope, viewportHeight: update.viewportHeight ?? cached?.viewportHeight, refreshedAt: refreshedAt,
                gapsBelow: gapsBelow, db: db)
            return (result, evicted)
        }
    }

    /// A post as the cache stores it: when it was first stored and last used, and its size.
    private struct CacheRow {
        var post: Post
        var storedAt: Double
        var lastAccess: Double
        var bytes: Int
    }

    /// `posts` as rows: each stored at `refreshedAt`, except those in `unconfirmed`, which keep
    /// the times the store has for them.
    private static func cacheRows(_ posts: [Post], scope: StoreScope, refreshedAt: Date, unconfirmed: Set<String>, db: Database) throws -> [CacheRow]
    {
        var previous: [String: (storedAt: Double, lastAccess: Double)] = [:]
        if !unconfirmed.isEmpty {
            for entry in try cacheEntries(scope: scope, db: db) where unconfirmed.contains(entry.key) {
                previous[entry.key] = (entry.storedAt.timeIntervalSince1970, entry.lastAccess.timeIntervalSince1970)
            }
        }
        let now = refreshedAt.timeIntervalSince1970
        return posts.map { post in
            let bytes = 48 + post.id.utf8.count + (post.author?.utf8.count ?? 0) + (post.text?.utf8.count ?? 0)
            let times = previous[post.id] ?? (now, now)
            return CacheRow(post: post, storedAt: times.storedAt, lastAccess: times.lastAccess, bytes: bytes)
        }
    }

    private static func replaceTimeline(
        _ posts: [Post], scope: StoreScope, viewportHeight: Double?, refreshedAt: Date,
        unconfirmed: Set<String>, gapsBelow: Set<String>, db: Database
    ) throws {
        let rows = try cacheRows(posts, scope: scope, refreshedAt: refreshedAt, unconfirmed: unconfirmed, db: db)
        try writeTimeline(rows, scope: scope, viewportHeight: viewportHeight, refreshedAt: refreshedAt, gapsBelow: gapsBelow, db: db)
    }

    private static func writeTimeline(
        _ rows: [CacheRow], scope: StoreScope, viewportHeight: Double?, refreshedAt: Date,
        gapsBelow: Set<String>, db: Database
    ) throws {
        try db.execute(sql: "DELETE FROM cachedPost WHERE account = ? AND timeline = ?", arguments: [scope.account, scope.timeline])
        let statement = try db.makeStatement(
            sql: """
                INSERT OR REPLACE INTO cachedPost (account, timeline, postId, position, createdAt, author, text, height, storedAt, lastAccess, bytes,
                                                   gapBelow)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for (position, row) in rows.enumerated() {
            let post = row.post
            try statement.execute(arguments: [
                scope.account, scope.timeline, post.id, position, post.createdAt.timeIntervalSinceReferenceDate,
                post.author, post.text, post.height, row.storedAt, row.lastAccess, row.bytes,
                position < rows.count - 1 && gapsBelow.contains(post.id),
            ])
        }
        try db.execute(
            sql: """
                INSERT INTO timelineState (account, timeline, refreshedAt, viewportHeight, revision) VALUES (?, ?, ?, ?, random())
                ON CONFLICT(account, timeline) DO UPDATE SET refreshedAt = excluded.refreshedAt, viewportHeight = excluded.viewportHeight,
                                                             revision = excluded.revision
                """, arguments: [scope.account, scope.timeline, refreshedAt.timeIntervalSince1970, viewportHeight])
    }

    /// Evicts from the cached timeline of `scope` what `policy` says, and returns the evicted
    /// ids.
    public func trimTimeline(scope: StoreScope, policy: any CachePolicy, now: Date) throws(StoreError) -> [String] {
        try write { db in
            let entries = try Self.cacheEntries(scope: scope, db: db)
            let evicted = policy.evictions(from: entries, now: now)
            try Self.markGaps(leftBy: evicted, scope: scope, db: db)
            _ = try delete(evicted, from: "cachedPost", scope: scope, among: entries, db: db)
            return evicted
        }
    }

    /// The time the cached timeline of `scope` was last refreshed from its source, without
    /// counting a cache hit.
    public func refreshedAt(scope: StoreScope) throws(StoreError) -> Date? {
        try read { db in
            let value = try Double.fetchOne(
                db, sql: "SELECT refreshedAt FROM timelineState WHERE account = ? AND timeline = ?",
                arguments: [scope.account, scope.timeline])
            return value.map(StoredTime.since1970)
        }
    }

    /// The cached timeline of `scope`, in display order; nil when nothing was cached. Counts a
    /// cache hit or miss, and marks the timeline's posts as used at `date`.
    /// On a read-only file system, or a disk too full to record the read, it is read without.
    public func timeline(scope: StoreScope, at date: Date = Date()) throws(StoreError) -> CachedTimeline? {
        if readOnlyReason != nil { return try storedTimeline(scope: scope) }
        do {
            return try countedTimeline(scope: scope, at: date)
        } catch  where error.isDiskFull {
            return try storedTimeline(scope: scope)
        }
    }

    private func countedTimeline(scope: StoreScope, at date: Date) throws(StoreError) -> CachedTimeline? {
        try write { db in
            let cached = try Self.cachedTimeline(scope: scope, db: db)
            try db.execute(
                sql: "INSERT INTO storeCounter (name, value) VALUES (?, 1) ON CONFLICT(name) DO UPDATE SET value = value + 1",
                arguments: [cached == nil ? "timelineMisses" : "timelineHits"])
            if cached != nil {
                try db.execute(
                    sql: "UPDATE timelineState SET lastReadAt = ? WHERE account = ? AND timeline = ?",
                    arguments: [date.timeIntervalSince1970, scope.account, scope.timeline])
            }
            return cached
        }
    }

    /// The cached timeline of `scope` as stored, without counting a read or marking its posts
    /// used: what a load reports after writing it.
    public func storedTimeline(scope: StoreScope) throws(StoreError) -> CachedTimeline? {
        try read { db in try Self.cachedTimeline(scope: scope, db: db) }
    }

    private static func cachedTimeline(scope: StoreScope, db: Database) throws -> CachedTimeline? {
        let state = try Row.fetchOne(
            db, sql: "SELECT refreshedAt, viewportHeight, revision FROM timelineState WHERE account = ? AND timeline = ?",
            arguments: [scope.account, scope.timeline])
        guard let state else { return nil }
        var posts: [Post] = []
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT postId, createdAt, author, text, height, gapBelow FROM cachedPost
                WHERE account = ? AND timeline = ? ORDER BY position
                """, arguments: [scope.account, scope.timeline])
        var gaps = Set<String>()
        while let row = try rows.next() {
            let post = Post(id: row[0], createdAt: StoredTime.sinceReferenceDate(row[1]), author: row[2], text: row[3], height: row[4])
            if row[5] as Bool { gaps.insert(post.id) }
            posts.append(post)
        }
        // A gap below the last post (its neighbour evicted) is the end of the cache, not a gap.
        if let last = posts.last { gaps.remove(last.id) }
        let refreshed: Double? = state[0]
        return CachedTimeline(
            posts: posts, refreshedAt: refreshed.map(StoredTime.since1970), viewportHeight: state[1],
            gapsBelow: gaps, revision: state[2])
    }

    /// SQLite's integrity check of the whole file: the problems it finds, none when the store is sound.
    public func integrityProblems() throws(StoreError) -> [String] {
        try read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").filter { $0 != "ok" } }
    }

    // MARK: Position history

    /// Saves a snapshot: one per post, the newest replacing an older one. A snapshot that has
    /// no JSON form (a non-finite offset) is refused with the key path, and nothing is written.
    public func saveSnapshot(_ snapshot: PositionSnapshot, scope: StoreScope) throws(StoreError) {
        let savedAt = (snapshot.savedAt ?? Date()).timeIntervalSince1970
        try write { db in
            let json = try JSONWriter(style: .compact).write(SnapshotCoding.value(of: snapshot))
            try db.execute(
                sql: "INSERT OR REPLACE INTO positionHistory (account, timeline, postId, savedAt, snapshot) VALUES (?, ?, ?, ?, ?)",
                arguments: [scope.account, scope.timeline, snapshot.postId, savedAt, json])
        }
        Self.logSave(snapshot, scope: scope, device: nil)
    }

    /// The saved snapshots of `scope`, newest first.
    public func history(scope: StoreScope) throws(StoreError) -> [PositionSnapshot] {
        let texts: [String] = try read { db in
            try String.fetchAll(
                db, sql: "SELECT snapshot FROM positionHistory WHERE account = ? AND timeline = ? ORDER BY savedAt DESC, postId",
                arguments: [scope.account, scope.timeline])
        }
        return texts.compactMap { try? SnapshotCoding.read(Data($0.utf8)) }
    }

    // MARK: Read posts

    public func markRead(_ ids: [String], scope: StoreScope, at date: Date) throws(StoreError) {
        try write { db in
            let statement = try db.makeStatement(sql: "INSERT OR REPLACE INTO readPost (account, timeline, postId, readAt) VALUES (?, ?, ?, ?)")
            for id in ids { try statement.execute(arguments: [scope.account, scope.timeline, id, date.timeIntervalSince1970]) }
        }
    }

    /// The read post ids of `scope`, most recently read first.
    public func readPostIds(scope: StoreScope) throws(StoreError) -> [String] {
        try read { db in
            try String.fetchAll(
                db, sql: "SELECT postId FROM readPost WHERE account = ? AND timeline = ? ORDER BY readAt DESC, postId",
                arguments: [scope.account, scope.timeline])
        }
    }

    // MARK: Last restoration

    /// Saves the last restoration; one that has no JSON form is refused, and nothing is written.
    public func saveRestoration(_ restoration: Restoration, scope: StoreScope, at date: Date) throws(StoreError) {
        try write { db in
            let json = try JSONWriter(style: .compact).write(SnapshotCoding.value(of: restoration))
            try db.execute(
                sql: "INSERT OR REPLACE INTO lastRestoration (account, timeline, restoredAt, restoration) VALUES (?, ?, ?, ?)",
                arguments: [scope.account, scope.timeline, date.timeIntervalSince1970, json])
        }
    }

    /// The last restoration of `scope`, as JSON, and when it happened.
    public func lastRestoration(scope: StoreScope) throws(StoreError) -> (json: String, at: Date)? {
        try read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT restoredAt, restoration FROM lastRestoration WHERE account = ? AND timeline = ?",
                    arguments: [scope.account, scope.timeline])
            else { return nil }
            return (row["restoration"], StoredTime.since1970(row["restoredAt"]))
        }
    }

    // MARK: Maintenance

    /// What `performMaintenance` removed.
    public struct MaintenanceReport: Sendable, Equatable {
        public var cachedPosts = 0
        public var snapshots = 0
        public var readPosts = 0

        public init(cachedPosts: Int = 0, snapshots: Int = 0, readPosts: Int = 0) {
            self.cachedPosts = cachedPosts
            self.snapshots = snapshots
            self.readPosts = readPosts
        }
    }

    /// Trims every scope's cached posts, history and read ids by their policies, in one
    /// transaction.
    public func performMaintenance(
        timelinePolicy: any CachePolicy, historyPolicy: any CachePolicy, readPostsPolicy: any CachePolicy,
        now: Date
    ) throws(StoreError) -> MaintenanceReport {
        try write { db in
            var report = MaintenanceReport()
            let scopes = try Row.fetchAll(
                db,
                sql: """
                    SELECT account, timeline FROM cachedPost UNION SELECT account, timeline FROM positionHistory
                    UNION SELECT account, timeline FROM readPost
                    """
            ).map { StoreScope(account: $0["account"], timeline: $0["timeline"]) }
            for scope in scopes {
                let arguments: StatementArguments = [scope.account, scope.timeline]
                let cached = try Self.cacheEntries(scope: scope, db: db)
                let evicted = timelinePolicy.evictions(from: cached, now: now)
                try Self.markGaps(leftBy: evicted, scope: scope, db: db)
                report.cachedPosts += try delete(evicted, from: "cachedPost", scope: scope, among: cached, db: db)
                let history = try Row.fetchAll(
                    db, sql: "SELECT postId, savedAt FROM positionHistory WHERE account = ? AND timeline = ?",
                    arguments: arguments
                ).map {
                    CacheEntry(key: $0["postId"], storedAt: StoredTime.since1970($0["savedAt"]))
                }
                report.snapshots += try delete(
                    historyPolicy.evictions(from: history, now: now), from: "positionHistory", scope: scope,
                    among: history, db: db)
                let reads = try Row.fetchAll(
                    db, sql: "SELECT postId, readAt FROM readPost WHERE account = ? AND timeline = ?",
                    arguments: arguments
                ).map {
                    CacheEntry(key: $0["postId"], storedAt: StoredTime.since1970($0["readAt"]))
                }
                report.readPosts += try delete(
                    readPostsPolicy.evictions(from: reads, now: now), from: "readPost", scope: scope,
                    among: reads, db: db)
            }
            LogCategory.cache.logger.debug(
                "evicted",
                metadata: [
                    "store": "\(path)", "cachedPosts": "\(report.cachedPosts)", "snapshots": "\(report.snapshots)",
                    "readPosts": "\(report.readPosts)",
                    "timelinePolicy": "\(timelinePolicy.name)", "historyPolicy": "\(historyPolicy.name)",
                    "readPostsPolicy": "\(readPostsPolicy.name)",
                ])
            return report
        }
    }

    /// Marks a gap below each cached post of `scope` that stays just above posts about to be
    /// evicted: the source still has them, and the cache no longer does.
    private static func markGaps(leftBy evicted: [String], scope: StoreScope, db: Database) throws {
        guard !evicted.isEmpty else { return }
        let leaving = Set(evicted)
        let ids = try String.fetchAll(
            db, sql: "SELECT postId FROM cachedPost WHERE account = ? AND timeline = ? ORDER BY position",
            arguments: [scope.account, scope.timeline])
        let mark = try db.makeStatement(sql: "UPDATE cachedPost SET gapBelow = 1 WHERE account = ? AND timeline = ? AND postId = ?")
        for (upper, lower) in zip(ids, ids.dropFirst()) where !leaving.contains(upper) && leaving.contains(lower) {
            try mark.execute(arguments: [scope.account, scope.timeline, upper])
        }
    }

    /// The cached posts of `scope` as cache entries; a post's last use is the later of its own
    /// and the timeline's last read.
    private static func cacheEntries(scope: StoreScope, db: Database) throws -> [CacheEntry] {
        try cacheEntries(scope: scope, db: db, lastRead: lastRead(scope: scope, db: db))
    }

    /// When the timeline of `scope` was last read (0: never).
    private static func lastRead(scope: StoreScope, db: Database) throws -> Double {
        try Double.fetchOne(
            db, sql: "SELECT lastReadAt FROM timelineState WHERE account = ? AND timeline = ?",
            arguments: [scope.account, scope.timeline]) ?? 0
    }

    /// The cached posts of `scope` as cache entries, a post's last use no earlier than `lastRead`.
    private static func cacheEntries(scope: StoreScope, db: Database, lastRead: Double) throws -> [CacheEntry] {
        var entries: [CacheEntry] = []
        let rows = try Row.fetchCursor(
            db, sql: "SELECT postId, storedAt, lastAccess, bytes FROM cachedPost WHERE account = ? AND timeline = ?",
            arguments: [scope.account, scope.timeline])
        while let row = try rows.next() {
            let lastAccess: Double = row[2]
            entries.append(
                CacheEntry(
                    key: row[0], storedAt: StoredTime.since1970(row[1]),
                    lastAccess: StoredTime.since1970(max(lastAccess, lastRead)), bytes: row[3]))
        }
        return entries
    }

    /// Deletes `keys` of `scope` from `table`, whose rows for the scope are `all`. When
    /// most rows go, the few that stay are named instead, and the rest deleted in one pass in
    /// storage order: several times faster than a lookup per evicted row.
    private func delete(_ keys: [String], from table: String, scope: StoreScope, among all: [CacheEntry], db: Database) throws -> Int {
        guard !keys.isEmpty else { return 0 }
        if table == "cachedPost" {
            try db.execute(
                sql: "UPDATE timelineState SET revision = random() WHERE account = ? AND timeline = ?",
                arguments: [scope.account, scope.timeline])
        }
        if keys.count > all.count / 2 {
            let evicted = Set(keys)
            try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS keptKey (key TEXT PRIMARY KEY)")
            try db.execute(sql: "DELETE FROM temp.keptKey")
            let keep = try db.makeStatement(sql: "INSERT OR IGNORE INTO temp.keptKey (key) VALUES (?)")
            for entry in all where !evicted.contains(entry.key) { try keep.execute(arguments: [entry.key]) }
            try db.execute(
                sql: "DELETE FROM \(table) WHERE account = ? AND timeline = ? AND postId NOT IN (SELECT key FROM temp.keptKey)",
                arguments: [scope.account, scope.timeline])
            try db.execute(sql: "DELETE FROM temp.keptKey")
            return keys.count
        }
        let statement = try db.makeStatement(sql: "DELETE FROM \(table) WHERE account = ? AND timeline = ? AND postId = ?")
        for key in keys { try statement.execute(arguments: [scope.account, scope.timeline, key]) }
        return keys.count
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

    public func statistics() throws(StoreError) -> Statistics {
        try read { db in
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
    public func counts() throws(StoreError) -> [String: Int] {
        try read { db in
            var result: [String: Int] = [:]
            for table in ["cachedPost", "positionHistory", "readPost", "lastRestoration", "syncQueue"] {
                result[table] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
            }
            return result
        }
    }
}
