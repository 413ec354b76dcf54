import Foundation
import GRDB
import TimelineEngineCacheModel
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineLogging
import TimelineEngineStrategyKit

/// The store's timeline cache: per account and timeline, the cached posts in display order, with
/// when each was stored and last used and where gaps lie, trimmed by cache policies; and
/// (`TimelineCacheStore+Index`) the text index kept beside them for the next launch.
public struct TimelineCacheStore: Sendable {
    /// A cached timeline as the store reads it back: its posts, gaps and times.
    public typealias CachedTimeline = TimelineStore.CachedTimeline
    let database: StoreDatabase
    /// Where its records go (`TimelineStore.init(path:create:loggers:)`).
    let loggers: EngineLoggers

    /// Replaces the cached timeline of `scope`. Every post counts as stored at `refreshedAt`,
    /// except those in `unconfirmed` (cached posts the source did not speak for), which keep
    /// the time they were first stored and last used, so that age-based policies still see
    /// their real age. A gap lies below each post in `gapsBelow`.
    public func saveTimeline(
        _ posts: [Post], scope: StoreScope, viewportHeight: Double? = nil, refreshedAt: Date,
        unconfirmed: Set<String> = [], gapsBelow: Set<String> = []
    ) async throws(StoreError) {
        try await database.write { db in
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
    public func updateTimeline<T: Sendable>(
        scope: StoreScope, refreshedAt: Date,
        _ change: @Sendable (CachedTimeline?) -> (update: TimelineUpdate?, result: T)
    ) async throws(StoreError) -> T {
        try await updateTimeline(scope: scope, refreshedAt: refreshedAt, trimmedBy: nil, change).result
    }

    /// `updateTimeline(scope:refreshedAt:_:)`, with what `policy` evicts from the new timeline
    /// (except the update's `kept`) left out before it is written, a gap marked above each run of
    /// evicted posts, as `trimTimeline` does: a refresh that brings many posts writes only what
    /// the cache keeps. Returns `change`'s result and the evicted ids.
    public func updateTimeline<T: Sendable>(
        scope: StoreScope, refreshedAt: Date, trimmedBy policy: (any CachePolicy)?,
        _ change: @Sendable (CachedTimeline?) -> (update: TimelineUpdate?, result: T)
    ) async throws(StoreError)
        -> (result: T, evicted: [String])
    {
        try await database.write { db in
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
                                                   gapBelow, boostOf)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for (position, row) in rows.enumerated() {
            let post = row.post
            try statement.execute(arguments: [
                scope.account, scope.timeline, post.id, position, post.createdAt.timeIntervalSinceReferenceDate,
                post.author, post.text, post.height, row.storedAt, row.lastAccess, row.bytes,
                position < rows.count - 1 && gapsBelow.contains(post.id), post.boostOf,
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
    public func trimTimeline(scope: StoreScope, policy: any CachePolicy, now: Date) async throws(StoreError) -> [String] {
        try await database.write { db in
            let entries = try Self.cacheEntries(scope: scope, db: db)
            let evicted = policy.evictions(from: entries, now: now)
            try Self.markGaps(leftBy: evicted, scope: scope, db: db)
            _ = try Self.delete(evicted, from: "cachedPost", scope: scope, among: entries, db: db)
            return evicted
        }
    }

    /// The time the cached timeline of `scope` was last refreshed from its source, without
    /// counting a cache hit.
    public func refreshedAt(scope: StoreScope) async throws(StoreError) -> Date? {
        try await database.read { db in
            let value = try Double.fetchOne(
                db, sql: "SELECT refreshedAt FROM timelineState WHERE account = ? AND timeline = ?",
                arguments: [scope.account, scope.timeline])
            return value.map(StoredTime.since1970)
        }
    }

    /// The cached timeline of `scope`, in display order; nil when nothing was cached. Counts a
    /// cache hit or miss, and marks the timeline's posts as used at `date`.
    /// On a read-only file system, or a disk too full to record the read, it is read without.
    public func timeline(scope: StoreScope, at date: Date = Date()) async throws(StoreError) -> CachedTimeline? {
        if database.readOnlyReason != nil { return try await storedTimeline(scope: scope) }
        do {
            return try await countedTimeline(scope: scope, at: date)
        } catch  where error.isDiskFull {
            return try await storedTimeline(scope: scope)
        }
    }

    private func countedTimeline(scope: StoreScope, at date: Date) async throws(StoreError) -> CachedTimeline? {
        try await database.write { db in
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
    public func storedTimeline(scope: StoreScope) async throws(StoreError) -> CachedTimeline? {
        try await database.read { db in try Self.cachedTimeline(scope: scope, db: db) }
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
                SELECT postId, createdAt, author, text, height, gapBelow, boostOf FROM cachedPost
                WHERE account = ? AND timeline = ? ORDER BY position
                """, arguments: [scope.account, scope.timeline])
        var gaps = Set<String>()
        while let row = try rows.next() {
            let post = Post(
                id: try row.stored(0), createdAt: StoredTime.sinceReferenceDate(try row.stored(1)), author: try row.stored(2),
                text: try row.stored(3), height: try row.stored(4), boostOf: try row.stored(6))
            if try row.stored(5, as: Bool.self) { gaps.insert(post.id) }
            posts.append(post)
        }
        // A gap below the last post (its neighbour evicted) is the end of the cache, not a gap.
        if let last = posts.last { gaps.remove(last.id) }
        let refreshed: Double? = try state.stored(0)
        return CachedTimeline(
            posts: posts, refreshedAt: refreshed.map(StoredTime.since1970), viewportHeight: try state.stored(1),
            gapsBelow: gaps, revision: try state.stored(2))
    }

    /// Marks a gap below each cached post of `scope` that stays just above posts about to be
    /// evicted: the source still has them, and the cache no longer does.
    static func markGaps(leftBy evicted: [String], scope: StoreScope, db: Database) throws {
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
    static func cacheEntries(scope: StoreScope, db: Database) throws -> [CacheEntry] {
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
            let lastAccess: Double = try row.stored(2)
            entries.append(
                CacheEntry(
                    key: try row.stored(0), storedAt: StoredTime.since1970(try row.stored(1)),
                    lastAccess: StoredTime.since1970(max(lastAccess, lastRead)), bytes: try row.stored(3)))
        }
        return entries
    }

    /// Deletes `keys` of `scope` from `table`, whose rows for the scope are `all`. When
    /// most rows go, the few that stay are named instead, and the rest deleted in one pass in
    /// storage order: several times faster than a lookup per evicted row.
    static func delete(_ keys: [String], from table: String, scope: StoreScope, among all: [CacheEntry], db: Database) throws -> Int {
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
}
