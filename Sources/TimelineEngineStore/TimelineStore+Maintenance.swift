import Foundation
import GRDB
import Logging
import TimelineEngineCacheModel
import TimelineEngineLogging
import TimelineEngineStrategyKit

extension TimelineStore {
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
    ) async throws(StoreError) -> MaintenanceReport {
        let path = self.path
        let logger = loggers.cache
        return try await database.write { db in
            var report = MaintenanceReport()
            let scopes = try Row.fetchAll(
                db,
                sql: """
                    SELECT account, timeline FROM cachedPost UNION SELECT account, timeline FROM positionHistory
                    UNION SELECT account, timeline FROM readPost
                    """
            ).map { StoreScope(account: $0["account"], timeline: $0["timeline"]) }
            for scope in scopes {
                let cached = try TimelineCacheStore.cacheEntries(scope: scope, db: db)
                let evicted = timelinePolicy.evictions(from: cached, now: now)
                try TimelineCacheStore.markGaps(leftBy: evicted, scope: scope, db: db)
                report.cachedPosts += try TimelineCacheStore.delete(evicted, from: "cachedPost", scope: scope, among: cached, db: db)
                report.snapshots += try Self.trim("positionHistory", by: "savedAt", scope: scope, policy: historyPolicy, now: now, db: db)
                let readEvicted = try Self.trim("readPost", by: "readAt", scope: scope, policy: readPostsPolicy, now: now, db: db)
                // What a save carries of the reads follows what is kept of them.
                if readEvicted > 0 { try PositionHistoryStore.rebuildRecentReads(scope: scope, db: db) }
                report.readPosts += readEvicted
            }
            logger.debug(
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

    /// Deletes from `table` the rows of `scope` that `policy` evicts, each row an entry keyed by
    /// its post id and stored at its `time` column; returns how many.
    private static func trim(_ table: String, by time: String, scope: StoreScope, policy: any CachePolicy, now: Date, db: Database) throws -> Int {
        let entries = try Row.fetchAll(
            db, sql: "SELECT postId, \(time) FROM \(table) WHERE account = ? AND timeline = ?", arguments: [scope.account, scope.timeline]
        ).map { CacheEntry(key: $0["postId"], storedAt: StoredTime.since1970($0[time])) }
        return try TimelineCacheStore.delete(policy.evictions(from: entries, now: now), from: table, scope: scope, among: entries, db: db)
    }
}
