import Foundation
import GRDB
import Testing
import TimelineEngineCore
import TimelineEngineSyncModel
import TimelineEngineTestSupport

@testable import TimelineEngineStore

/// A store edited by hand or by another program can hold a value of another type than the engine
/// writes in a column (SQLite keeps what it is given). Reading one stopped the process (GRDB's row
/// subscripts trap: `timeline show` and `timeline fetch` died of SIGILL on a `refreshedAt` of
/// text); it is now an error naming the column, and the file is left as it is.
@Suite("Values of another type in a store", .timeLimit(.minutes(10)))
struct StoredValueTests {
    static let scope = StoreScope(account: "me", timeline: "home")
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// A store holding a timeline of three posts and a saved position, closed, then changed by
    /// `sql` from outside the engine.
    static func store(changedBy sql: String, in directory: URL) async throws -> String {
        let path = directory.appendingPathComponent("s.sqlite").path
        let store = try await TimelineStore(path: path)
        let posts = (0..<3).map { Post(id: "p\($0)", createdAt: now.addingTimeInterval(Double(-$0)), author: "a", text: "t", height: 100) }
        try await store.timelines.saveTimeline(posts, scope: scope, refreshedAt: now)
        _ = try await store.sync.savePosition(PositionSnapshot(postId: "p1"), scope: scope, device: "phone", at: now)
        await store.close()
        let queue = try DatabaseQueue(path: path)
        try await queue.write { db in try db.execute(sql: sql) }
        try queue.close()
        return path
    }

    @Test(
        "a cached timeline's column of another type is an error naming it, not a crash",
        arguments: [
            ("UPDATE timelineState SET refreshedAt = 'x'", "column refreshedAt holds text where a number belongs"),
            ("UPDATE cachedPost SET height = 'tall' WHERE postId = 'p1'", "column height holds text where a number belongs"),
            ("UPDATE cachedPost SET createdAt = x'00' WHERE postId = 'p2'", "column createdAt holds bytes where a number belongs"),
            ("UPDATE cachedPost SET gapBelow = 'z'", "column gapBelow holds text where a boolean belongs"),
        ])
    func cachedTimeline(sql: String, problem: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try await Self.store(changedBy: sql, in: directory)
        let store = try await TimelineStore(path: path)
        await #expect(throws: StoreError(path: path, "the store is damaged (\(problem)); it is left as it is", kind: .incompatible)) {
            try await store.timelines.timeline(scope: Self.scope, at: Self.now)
        }
        await store.close()
        // Nothing was dropped or rewritten to make the read pass.
        let queue = try DatabaseQueue(path: path)
        #expect(try await queue.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM cachedPost") } == 3)
        try queue.close()
    }

    @Test("a head whose column holds another type is skipped as a damaged one is; the rest of the register reads")
    func damagedHead() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try await Self.store(changedBy: "UPDATE positionHead SET savedAt = 'yesterday'", in: directory)
        let store = try await TimelineStore(path: path)
        let register = try await store.sync.register(of: RegisterKey(account: Self.scope.account, timeline: Self.scope.timeline))
        #expect(register.heads.isEmpty)
        await store.close()
    }

    @Test("an outbox entry of another type is an error naming its column")
    func outbox() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try await Self.store(changedBy: "UPDATE syncQueue SET timeline = x'FF'", in: directory)
        let store = try await TimelineStore(path: path)
        await #expect(
            throws: StoreError(
                path: path, "the store is damaged (column timeline holds bytes where text belongs); it is left as it is", kind: .incompatible)
        ) {
            try await store.sync.pendingWrites()
        }
        await store.close()
    }
}

/// A store written before registers were bounded may hold more devices' heads than a write can
/// name; a save there would build a context no device or server takes.
@Suite("A save no peer could take", .timeLimit(.minutes(10)))
struct UncarriableSaveTests {
    @Test("a register holding 1,001 devices' heads (a store from before the bound) refuses the save, naming why, and saves nothing")
    func tooManyDevices() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("s.sqlite").path
        let store = try await TimelineStore(path: path)
        let key = RegisterKey(account: "me", timeline: "home")
        try await store.database.write { db in
            for number in 0...1_000 {
                try SyncStateStore.storeHead(
                    PositionRecord(
                        key: key, stamp: RegisterStamp(time: HybridTimestamp(milliseconds: 1_000 + UInt64(number), counter: 0), device: "d\(number)"),
                        sequence: 1, savedAt: Date(timeIntervalSince1970: 1), snapshot: PositionSnapshot(postId: "p1"), epoch: .zero, progress: nil),
                    db)
            }
        }
        await #expect(
            throws: StoreError(
                path: path, "the write cannot be carried: its causal context names 1001 devices, more than the limit of 1000; nothing is saved")
        ) {
            try await store.sync.savePosition(PositionSnapshot(postId: "p2"), scope: StoreScope(account: "me", timeline: "home"), device: "phone")
        }
        #expect(try await store.sync.pendingWrites().isEmpty)
        #expect(try await store.positions.history(scope: StoreScope(account: "me", timeline: "home")).isEmpty)
        await store.close()
    }
}
