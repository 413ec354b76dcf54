import CacheModel
import Foundation
import GRDB
import Logging
import StrategyKit
import TimelineLogging

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
                let arguments: StatementArguments = [scope.account, scope.timeline]
                let cached = try TimelineCacheStore.cacheEntries(scope: scope, db: db)
                let evicted = timelinePolicy.evictions(from: cached, now: now)
                try TimelineCacheStore.markGaps(leftBy: evicted, scope: scope, db: db)
                report.cachedPosts += try TimelineCacheStore.delete(evicted, from: "cachedPost", scope: scope, among: cached, db: db)
                let history = try Row.fetchAll(
                    db, sql: "SELECT postId, savedAt FROM positionHistory WHERE account = ? AND timeline = ?",
                    arguments: arguments
                ).map {
                    CacheEntry(key: $0["postId"], storedAt: StoredTime.since1970($0["savedAt"]))
                }
                report.snapshots += try TimelineCacheStore.delete(
                    historyPolicy.evictions(from: history, now: now), from: "positionHistory", scope: scope,
                    among: history, db: db)
                let reads = try Row.fetchAll(
                    db, sql: "SELECT postId, readAt FROM readPost WHERE account = ? AND timeline = ?",
                    arguments: arguments
                ).map {
                    CacheEntry(key: $0["postId"], storedAt: StoredTime.since1970($0["readAt"]))
                }
                report.readPosts += try TimelineCacheStore.delete(
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
}
