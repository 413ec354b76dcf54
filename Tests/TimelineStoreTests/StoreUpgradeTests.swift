import Foundation
import GRDB
import Testing
import TimelineEngineCore
import TimelineEngineSyncModel
import TimelineEngineTestSupport

@testable import TimelineEngineStore

/// Store files written by each released schema version (`Tests/Fixtures/stores/`) open, migrate
/// and keep their data.
@Suite("Store upgrades", .timeLimit(.minutes(10)))
struct StoreUpgradeTests {
    static let versions = ["v1", "v2-counters", "v3-last-read", "v4-sync", "v5-heads", "v6-gaps", "v7-revision"]
    /// Every migration, the fixtures' and the ones after them.
    static let migrations = versions + ["v8-exact-times", "v9-clocks-revision", "v10-read-content", "v11-head-reads"]
    /// The versions with sync state.
    static let syncing: Set<String> = ["v4-sync", "v5-heads", "v6-gaps", "v7-revision"]
    /// The versions whose sync state is heads.
    static let headed: Set<String> = ["v5-heads", "v6-gaps", "v7-revision"]
    /// The versions with gaps.
    static let gapped: Set<String> = ["v6-gaps", "v7-revision"]
    static let scope = StoreScope(account: "upgrade@example.social", timeline: "home")
    static let posts = ["p0", "p1", "p2"]

    /// Writes the missing fixtures: the schema of `version` exactly as that release's migrations
    /// made it, and the rows that release wrote. Run once with TIMELINE_STORE_WRITE_FIXTURES=1
    /// when a migration is released; the files are committed and never rewritten after.
    @Test(
        "the fixtures are written by the released migrations",
        .enabled(if: ProcessInfo.processInfo.environment["TIMELINE_STORE_WRITE_FIXTURES"] == "1"))
    func writeFixtures() throws {
        for version in Self.versions {
            let url = Fixtures.repositoryURL("Tests/Fixtures/stores/store-\(version).sqlite")
            guard !FileManager.default.fileExists(atPath: url.path) else { continue }
            let queue = try DatabaseQueue(path: url.path)
            try StoreSchema.migrator.migrate(queue, upTo: version)
            try queue.write { db in
                for (position, id) in Self.posts.enumerated() {
                    try db.execute(
                        sql: """
                            INSERT INTO cachedPost (account, timeline, postId, position, createdAt, author, text, height, storedAt, lastAccess, bytes)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """,
                        arguments: [
                            Self.scope.account, Self.scope.timeline, id, position, 1_700_000_000 - Double(60 * position),
                            "author\(position)", "text of \(id) ünï", 100 + Double(position), 1_700_000_100, 1_700_000_100, 40,
                        ])
                }
                try db.execute(
                    sql: "INSERT INTO timelineState (account, timeline, refreshedAt, viewportHeight) VALUES (?, ?, ?, ?)",
                    arguments: [Self.scope.account, Self.scope.timeline, 1_700_000_100, 812])
                try db.execute(
                    sql: "INSERT INTO positionHistory (account, timeline, postId, savedAt, snapshot) VALUES (?, ?, ?, ?, ?)",
                    arguments: [
                        Self.scope.account, Self.scope.timeline, "p1", 1_700_000_200,
                        #"{"postId":"p1","viewportY":-20.0,"contentOffset":80.0,"index":1,"timelineCount":3,"neighbors":{"above":["p0"],"below":["p2"]},"savedAt":"2023-11-14T22:16:40Z"}"#,
                    ])
                try db.execute(
                    sql: "INSERT INTO readPost (account, timeline, postId, readAt) VALUES (?, ?, ?, ?)",
                    arguments: [Self.scope.account, Self.scope.timeline, "p0", 1_700_000_150])
                try db.execute(
                    sql: "INSERT INTO lastRestoration (account, timeline, restoredAt, restoration) VALUES (?, ?, ?, ?)",
                    arguments: [
                        Self.scope.account, Self.scope.timeline, 1_700_000_300,
                        #"{"postId":"p1","index":1,"contentOffset":80.0,"viewportY":-20.0,"method":"exact_match","strategy":"ExactMatch","confidence":1.0,"explanation":"post p1 is still in the timeline at index 1"}"#,
                    ])
                if version != "v1" {
                    try db.execute(sql: "INSERT INTO storeCounter (name, value) VALUES ('timelineHits', 4), ('timelineMisses', 1)")
                }
                if version != "v1", version != "v2-counters" {
                    try db.execute(sql: "UPDATE timelineState SET lastReadAt = ?", arguments: [1_700_000_250])
                }
                if version == "v4-sync" {
                    try db.execute(sql: "INSERT INTO syncState (name, value) VALUES ('device', 'phone'), ('hlc', '111410065408000000')")
                    for table in ["positionRegister", "devicePosition"] {
                        try db.execute(
                            sql: """
                                INSERT INTO \(table) (account, timeline, hlc, device, savedAt, epochHlc, epochDevice, progressCreatedAt, progressPostId, snapshot)
                                VALUES (?, ?, ?, 'phone', ?, 0, '', ?, 'p1', ?)
                                """,
                            arguments: [
                                Self.scope.account, Self.scope.timeline, 111_410_065_408_000_000, 1_700_000_200, 1_699_999_940,
                                #"{"postId":"p1","viewportY":-20.0,"contentOffset":80.0,"neighbors":{"above":[],"below":[]},"deviceId":"phone"}"#,
                            ])
                    }
                }
                if Self.gapped.contains(version) {
                    try db.execute(sql: "UPDATE cachedPost SET gapBelow = 1 WHERE postId = 'p0'")
                }
                if version == "v7-revision" {
                    try db.execute(sql: "UPDATE timelineState SET revision = 7")
                }
                if Self.headed.contains(version) {
                    try db.execute(
                        sql: "INSERT INTO syncState (name, value) VALUES ('device', 'phone'), ('hlc', '111410065408000000'), ('sequence', '3')")
                    try db.execute(
                        sql: """
                            INSERT INTO positionHead (account, timeline, device, sequence, hlc, savedAt, epochHlc, epochDevice, progressCreatedAt,
                                                      progressPostId, context, visitSeconds, visitPosts, clocks, movesOlder, movesNewer, snapshot)
                            VALUES (?, ?, 'phone', 3, ?, ?, 0, '', ?, 'p1', '{"laptop":2}', 40.5, 6, '{"laptop":-1200}', 2, 0, ?)
                            """,
                        arguments: [
                            Self.scope.account, Self.scope.timeline, 111_410_065_408_000_000, 1_700_000_200, 1_699_999_940,
                            #"{"postId":"p1","viewportY":-20.0,"contentOffset":80.0,"neighbors":{"above":[],"below":[]},"deviceId":"phone"}"#,
                        ])
                }
                if Self.syncing.contains(version) {
                    try db.execute(
                        sql: "INSERT INTO syncQueue (account, timeline, kind, payload, enqueuedAt) VALUES (?, ?, 'position', ?, ?)",
                        arguments: [Self.scope.account, Self.scope.timeline, "018bd3a3d8000000@phone", 1_700_000_200])
                }
            }
            try queue.writeWithoutTransaction { try $0.execute(sql: "VACUUM") }
        }
    }

    @Test("a store of every earlier version opens, migrates to the current schema and keeps its data", arguments: versions)
    func upgrades(_ version: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        try FileManager.default.copyItem(at: Fixtures.repositoryURL("Tests/Fixtures/stores/store-\(version).sqlite"), to: URL(fileURLWithPath: path))
        let store = try await TimelineStore(path: path, create: false)
        let statistics = try await store.statistics()
        #expect(statistics.migrations == Self.migrations)
        let cached = try #require(try await store.timelines.timeline(scope: Self.scope))
        #expect(cached.posts.map(\.id) == Self.posts)
        #expect(cached.posts.map(\.text) == ["text of p0 ünï", "text of p1 ünï", "text of p2 ünï"])
        #expect(cached.posts.map(\.height) == [100, 101, 102])
        #expect(cached.posts[2].createdAt == Date(timeIntervalSince1970: 1_699_999_880))
        #expect(cached.refreshedAt == Date(timeIntervalSince1970: 1_700_000_100))
        #expect(cached.viewportHeight == 812)
        // Gaps came with v6: earlier stores have none.
        #expect(cached.gaps == (Self.gapped.contains(version) ? [TimelineGap(above: "p0", below: "p1")] : []))
        // Revisions came with v7: earlier stores have none until the posts are next written. v8
        // converted the posts' times, so a v7 revision is drawn again: its kept index is stale.
        if version == "v7-revision" {
            #expect(cached.revision != nil && cached.revision != 7)
        } else {
            #expect(cached.revision == nil)
        }
        let history = try await store.positions.history(scope: Self.scope)
        #expect(history.map(\.postId) == ["p1"])
        #expect(history.first?.neighbors.below == ["p2"])
        #expect(try await store.positions.readPostIds(scope: Self.scope) == ["p0"])
        #expect(try await store.positions.lastRestoration(scope: Self.scope)?.json.contains(#""postId":"p1""#) == true)
        // Counters came with v2: a v1 store starts them at zero (taken before the reads above).
        #expect(statistics.timelineHits == (version == "v1" ? 0 : 4))
        #expect(statistics.timelineMisses == (version == "v1" ? 0 : 1))
        // The store writes after the upgrade.
        try await store.positions.saveSnapshot(PositionSnapshot(postId: "p2", savedAt: Date(timeIntervalSince1970: 1_700_000_400)), scope: Self.scope)
        #expect(try await store.positions.history(scope: Self.scope).map(\.postId) == ["p2", "p1"])
        // Sync came with v4: its device position (a head since v5), device and outbox survive;
        // earlier stores start empty. A v4 position becomes a head numbered by its clock's
        // milliseconds, with an empty context.
        let key = RegisterKey(account: Self.scope.account, timeline: Self.scope.timeline)
        let head = try await store.sync.register(of: key).head(of: "phone")
        #expect(head?.snapshot?.postId == (Self.syncing.contains(version) ? "p1" : nil))
        #expect(head?.sequence == (version == "v4-sync" ? 1_699_982_687_500 : Self.headed.contains(version) ? 3 : nil))
        #expect(head?.context == (Self.headed.contains(version) ? VersionVector([("laptop", 2)]) : Self.syncing.contains(version) ? .empty : nil))
        #expect(head?.clocks == (Self.headed.contains(version) ? ClockOffsets([("laptop", -1_200)]) : Self.syncing.contains(version) ? .empty : nil))
        #expect(try await store.sync.pendingWrites().count == (Self.syncing.contains(version) ? 1 : 0))
        #expect(try await store.sync.storedDeviceId() == (Self.syncing.contains(version) ? "phone" : nil))
        // The next save numbers on from the device's highest write.
        if Self.syncing.contains(version) {
            let saved = try await store.sync.savePosition(
                PositionSnapshot(postId: "p2"), scope: Self.scope, device: "phone", at: Date(timeIntervalSince1970: 1_800_000_000))
            #expect(saved.sequence == (head?.sequence ?? 0) + 1)
        }
    }
}

/// Upgrades with newer rows already present: what a migration copies never replaces them.
@Suite("Store upgrades keep the newest rows", .timeLimit(.minutes(10)))
struct StoreUpgradeNewerRowsTests {
    @Test("a v4 store whose device position is newer than the register's winner of the same device keeps the newer one as its head")
    func newerDevicePosition() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("v4.sqlite").path
        let scope = StoreUpgradeTests.scope
        do {
            let queue = try DatabaseQueue(path: path)
            try StoreSchema.migrator.migrate(queue, upTo: "v4-sync")
            try await queue.write { db in
                try db.execute(sql: "INSERT INTO syncState (name, value) VALUES ('device', 'phone')")
                // The register's winner is the phone's older write; its own latest is newer.
                for (table, hlc, post) in [("positionRegister", 111_410_065_408_000_000, "p1"), ("devicePosition", 111_410_065_408_100_000, "p2")] {
                    try db.execute(
                        sql: """
                            INSERT INTO \(table) (account, timeline, hlc, device, savedAt, epochHlc, epochDevice, progressCreatedAt, progressPostId, snapshot)
                            VALUES (?, ?, ?, 'phone', 1700000200, 0, '', 1699999940, ?, ?)
                            """,
                        arguments: [
                            scope.account, scope.timeline, hlc, post,
                            #"{"postId":"\#(post)","viewportY":0.0,"contentOffset":0.0,"neighbors":{"above":[],"below":[]},"deviceId":"phone"}"#,
                        ])
                }
            }
        }
        let store = try await TimelineStore(path: path, create: false)
        let head = try await store.sync.register(of: RegisterKey(account: scope.account, timeline: scope.timeline)).head(of: "phone")
        #expect(head?.snapshot?.postId == "p2")
        #expect(head?.stamp.time.rawValue == 111_410_065_408_100_000)
    }
}

/// The store's text for causal contexts and clock bounds.
@Suite("Integer maps in the store", .timeLimit(.minutes(10)))
struct IntegerMapTests {
    @Test("what encode writes, decode reads back exactly; anything else is left to the JSON reader")
    func roundTrip() throws {
        let pairs: [(String, Int64)] = [("laptop", 3), ("phone", -1_500), ("é\"quoted\"", Int64.max), ("min", Int64.min)]
        let text = IntegerMap.encode(pairs)
        #expect(text == #"{"laptop":3,"phone":-1500,"é\"quoted\"":9223372036854775807,"min":-9223372036854775808}"#)
        // The escaped key sends the fast reader to the JSON one; plain ones it reads itself.
        #expect(IntegerMap.decode(text) == nil)
        let plain = IntegerMap.encode([("laptop", 3), ("phone", -1_500)])
        #expect(IntegerMap.decode(plain).map { $0.map(\.0) } == ["laptop", "phone"])
        #expect(IntegerMap.decode(plain).map { $0.map(\.1) } == [3, -1_500])
        for bad in ["", "{", "{}x", #"{"a":}"#, #"{"a":1,}"#, #"{"a":99999999999999999999}"#, #"{"a" :1}"#] {
            #expect(IntegerMap.decode(bad) == nil, "\(bad)")
        }
        #expect(IntegerMap.decode("{}").map(\.isEmpty) == true)
        // Through the store's readers, escapes included.
        #expect(SyncStateStore.clocks(from: text) == ClockOffsets(pairs))
        #expect(SyncStateStore.context(from: #"{"laptop":3,"a\"b":7}"#) == VersionVector([("laptop", 3), ("a\"b", 7)]))
    }
}
