import Foundation
import TimelineEngineFormats
import TimelineEngineStore
import TimelineEngineValueTree

/// How syncing stands on one store: the last round, the pending writes, the devices heard from
/// and the wrong clocks seen, as `engine sync status` prints it in text and JSON.
public struct SyncStatusReport: Sendable {
    /// This store's device id, or `(no id yet)`.
    public let device: String
    public let record: SyncStateStore.SyncRecord
    /// Writes in the outbox, not yet acknowledged by a transport.
    public let pending: Int

    /// The report of `store` as it is now.
    public init(store: TimelineStore) async throws(StoreError) {
        record = try await store.sync.syncRecord()
        pending = try await store.sync.pendingWrites().count
        device = try await store.sync.storedDeviceId() ?? "(no id yet)"
    }

    /// One line: `error: …` when the last attempt failed, else when the last round succeeded
    /// (`synced at …`, `never synced`), with the pending writes.
    public var status: String {
        if let error = record.lastError, record.lastAttemptAt != record.lastSyncAt { return "error: \(error)" }
        if let last = record.lastSyncAt {
            return pending > 0 ? "synced at \(Timestamp.format(last)), \(pending) pending" : "synced at \(Timestamp.format(last))"
        }
        return pending > 0 ? "never synced, \(pending) pending" : "idle: never synced"
    }

    /// The report as `engine sync status --format json` writes it.
    public var jsonValue: Value {
        .dictionary([
            ("device", .string(device)), ("status", .string(status)),
            ("lastSyncAt", record.lastSyncAt.map { .string(Timestamp.format($0)) } ?? .null),
            ("lastError", record.lastError.map(Value.string) ?? .null), ("pending", .integer(pending)),
            ("devices", .array(record.devices.map(Value.string))),
            (
                "wrongClocks",
                .array(
                    record.wrongClocks.map { clock in
                        .dictionary([
                            ("device", .string(clock.device)), ("aheadSeconds", .real(clock.ahead)),
                            ("seenAt", .string(Timestamp.format(clock.seenAt))),
                        ])
                    })
            ),
        ])
    }
}
