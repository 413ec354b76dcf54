import Foundation
import Testing
import TimelineEngineCore
import TimelineEnginePositionSync
import TimelineEngineStore
import TimelineEngineSyncModel
import TimelineEngineTestSupport
import TimelineEngineValueTree

/// How syncing stands on a store, as `engine sync status` prints it, read in the library.
@Suite("Sync status report", .timeLimit(.minutes(10)))
struct SyncStatusReportTests {
    @Test("a new store is idle; a save is pending until a round succeeds; the JSON names every field")
    func stands() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await TimelineStore(path: directory.appendingPathComponent("state.sqlite").path)
        let fresh = try await SyncStatusReport(store: store)
        #expect(fresh.status == "idle: never synced")
        #expect(fresh.pending == 0)
        let at = Date(timeIntervalSince1970: 1_790_000_000)
        try await store.sync.savePosition(PositionSnapshot(postId: "p1"), scope: StoreScope(account: "me", timeline: "home"), device: "phone", at: at)
        let pending = try await SyncStatusReport(store: store)
        #expect(pending.status == "never synced, 1 pending")
        let json = pending.jsonValue
        #expect(json.dictionaryValue?.keys.map(\.string) == ["device", "status", "lastSyncAt", "lastError", "pending", "devices", "wrongClocks"])
        #expect(json["status"]?.stringValue == "never synced, 1 pending")
        #expect(json["pending"]?.numberValue == 1)
        #expect(json["lastSyncAt"] == .null)
        #expect(json["wrongClocks"] == .array([]))
    }
}
