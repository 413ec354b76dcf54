import Logging
import TimelineEngineCore

extension TimelineStore {
    /// Logs, in the cache category, the migrations opening a store applied: at `notice` when
    /// an existing store was upgraded, at `debug` when a new one was created.
    static func logMigrations(path: String, before: [String], after: [String], to logger: Logger) {
        let applied = after.filter { !before.contains($0) }
        guard !applied.isEmpty else { return }
        let metadata: Logger.Metadata = ["store": "\(path)", "applied": "\(applied.joined(separator: ","))"]
        if let last = before.last {
            logger.notice("store migrated", metadata: metadata.merging(["from": "\(last)"]) { $1 })
        } else {
            logger.debug("store created", metadata: metadata)
        }
    }

    /// Logs a saved position in the position category, at `debug`.
    static func logSave(_ snapshot: PositionSnapshot, scope: StoreScope, device: String?, to logger: Logger) {
        guard logger.logLevel <= .debug else { return }
        var metadata: Logger.Metadata = [
            "account": "\(scope.account)", "timeline": "\(scope.timeline)", "post": "\(snapshot.postId)",
            "viewportY": "\(snapshot.viewportY)", "contentOffset": "\(snapshot.contentOffset)",
        ]
        if let device { metadata["device"] = "\(device)" }
        logger.debug("saved", metadata: metadata)
    }
}
