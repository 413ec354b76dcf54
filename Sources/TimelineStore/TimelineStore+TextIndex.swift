import Foundation
import GRDB
import TimelineCore
import TimelineLogging

extension TimelineStore {
    /// Where the text index of `scope`'s cached timeline is kept: a file in the directory
    /// `<store>-textindex` beside the database, named by a hash of the scope.
    public func textIndexPath(scope: StoreScope) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in scope.account.utf8 + [0] + scope.timeline.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let name = String(hash, radix: 16)
        return path + "-textindex/" + String(repeating: "0", count: 16 - name.count) + name + ".index"
    }

    /// The text index kept for `cached`, the timeline of `scope` as read from this store,
    /// mapped into memory: nil when none was kept for this revision of its posts. A kept file
    /// that cannot be used (damaged, or from another platform) is logged in the cache category
    /// and left for `keepTextIndex` to replace.
    public func keptTextIndex(for cached: CachedTimeline, scope: StoreScope) -> TextIndex? {
        guard let revision = cached.revision else { return nil }
        let file = textIndexPath(scope: scope)
        guard FileManager.default.fileExists(atPath: file) else { return nil }
        do {
            return try TextIndexFile.map(file, tag: UInt64(bitPattern: revision), textCount: cached.posts.count)
        } catch {
            LogCategory.cache.logger.notice("text index not used", metadata: ["store": "\(path)", "problem": "\(error)"])
            return nil
        }
    }

    /// Keeps `index`, built over the texts of `cached`'s posts in display order, for
    /// `keptTextIndex` to map in a later process. Nothing is written when the cached posts have
    /// changed since `cached` was read: the index would never be used.
    public func keepTextIndex(_ index: TextIndex, for cached: CachedTimeline, scope: StoreScope) throws(StoreError) {
        guard let revision = cached.revision, index.textCount == cached.posts.count else { return }
        let current = try read { db in
            try Int64.fetchOne(db, sql: "SELECT revision FROM timelineState WHERE account = ? AND timeline = ?", arguments: [scope.account, scope.timeline])
        }
        guard current == revision else { return }
        let file = textIndexPath(scope: scope)
        do {
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try TextIndexFile.write(index, to: file, tag: UInt64(bitPattern: revision))
        } catch let problem as TextIndexFile.Problem {
            throw StoreError(path: problem.path, "cannot keep the text index: \(problem.reason)")
        } catch {
            throw StoreError(path: file, "cannot keep the text index: \(error.localizedDescription)")
        }
    }
}
