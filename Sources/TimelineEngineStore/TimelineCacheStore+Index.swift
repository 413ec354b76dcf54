import Foundation
import GRDB
import TimelineEngineCore
import TimelineEngineLogging
import TimelineEngineSearch
import TimelineEngineSupport

extension TimelineCacheStore {
    /// Where the index of `scope`'s cached timeline is kept: files in the directory
    /// `<store>-index` beside the database, named by a hash of the scope, `.text` for the text
    /// index and `.lookups` for the time order and the id table.
    public func indexPath(scope: StoreScope) -> String {
        database.path + "-index/" + IndexFile.fileName(for: scope.account + "\u{0}" + scope.timeline)
    }

    /// The index of `cached`, the timeline of `scope` as read from this store, with what
    /// `keepIndex` kept for this revision of its posts mapped into memory: the text index, the
    /// time order and the id table, which a first restore then does not make. A kept file that
    /// cannot be used (damaged, or from another platform) is logged in the cache category and
    /// left for `keepIndex` to replace; what is not kept is made on first need, as always.
    public func index(of cached: CachedTimeline, scope: StoreScope) -> TimelineIndex {
        guard let revision = cached.revision else { return TimelineIndex(cached.timeline) }
        let base = indexPath(scope: scope)
        let tag = UInt64(bitPattern: revision)
        func mapped<T>(_ file: String, _ map: (String) throws(IndexFile.Problem) -> T) -> T? {
            guard FileManager.default.fileExists(atPath: file) else { return nil }
            do {
                return try map(file)
            } catch {
                loggers.cache.notice("kept index not used", metadata: ["store": "\(database.path)", "problem": "\(error)"])
                return nil
            }
        }
        let text = mapped(base + ".text") { file throws(IndexFile.Problem) in try TextIndexFile.map(file, tag: tag, textCount: cached.posts.count) }
        let lookups = mapped(base + ".lookups") { file throws(IndexFile.Problem) in try TimelineLookups.map(file, tag: tag, count: cached.posts.count)
        }
        return TimelineIndex(cached.timeline, textIndex: text, lookups: lookups)
    }

    /// Keeps the text index, time order and an id table of `index`, the index of `cached`'s
    /// posts, for `index(of:scope:)` to map in a later process; what `index` has not made yet
    /// is made first (seconds at a million posts). Nothing is written when the cached posts have
    /// changed since `cached` was read: it would never be used.
    public func keepIndex(_ index: TimelineIndex, for cached: CachedTimeline, scope: StoreScope) async throws(StoreError) {
        guard let revision = cached.revision, index.count == cached.posts.count else { return }
        let current = try await database.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT revision FROM timelineState WHERE account = ? AND timeline = ?", arguments: [scope.account, scope.timeline])
        }
        guard current == revision else { return }
        let base = indexPath(scope: scope)
        let tag = UInt64(bitPattern: revision)
        // Seconds of work and file writes at a million posts: on a queue of their own.
        try await OffPool.run { () throws(StoreError) in try Self.write(index, to: base, tag: tag) }
    }

    private static func write(_ index: TimelineIndex, to base: String, tag: UInt64) throws(StoreError) {
        do {
            try FileManager.default.createDirectory(atPath: (base as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try TextIndexFile.write(index.textIndex, to: base + ".text", tag: tag)
            try TimelineLookups.write(index, to: base + ".lookups", tag: tag)
        } catch let problem as IndexFile.Problem {
            throw StoreError(path: problem.path, "cannot keep the index: \(problem.reason)")
        } catch {
            throw StoreError(path: base, "cannot keep the index: \(error.localizedDescription)")
        }
    }
}
