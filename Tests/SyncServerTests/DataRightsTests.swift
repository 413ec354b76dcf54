#if SyncServer
import Foundation
import GRDB
import TimelineEngineSyncModel
import TimelineEngineSyncServer
import TimelineEngineSyncWire
import Testing
import TimelineEngineTestSupport

/// A user's data on the server: exported whole, erased with a tombstone that old heads cannot
/// pass, and heads of devices no longer written dropped (retention), on SQLite and PostgreSQL.
@Suite("Data rights on the sync server", .timeLimit(.minutes(10)))
struct DataRightsTests {
    /// A clock a test sets, for a storage's `now`.
    // @unchecked: its one value is read and written under `lock` only.
    final class Now: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Date
        init(_ date: Date) { value = date }
        var date: Date { lock.withLock { value } }
        func set(_ date: Date) { lock.withLock { value = date } }
    }

    /// Records as stored (wire-format objects), read as a device reads them.
    static func records(_ texts: [String]) throws -> [PositionRecord] {
        let document = #"{"format":"timeline-sync","version":2,"device":"server","records":[\#(texts.joined(separator: ","))]}"#
        return try SyncWireCoding.decode(Data(document.utf8)).records
    }

    /// A JSON object's members, through Foundation.
    static func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    static let storages = ["SQLite", "PostgreSQL"]

    /// A storage of `kind` in `directory`, with `now`; nil for PostgreSQL without a server.
    static func storage(_ kind: String, in directory: URL, now: Now) throws -> (any RegisterStorage)? {
        if kind == "SQLite" {
            return try SQLiteRegisterStorage(path: directory.appendingPathComponent("server.sqlite").path, now: { now.date })
        }
        guard let url = postgresTestURL else { return nil }
        return try PostgresRegisterStorage(url: url, logger: ServerHarness.logger, serving: false, now: { now.date })
    }

    /// Runs `body` with the storage (and PostgreSQL's pool running).
    static func with(_ kind: String, now: Now, _ body: (any RegisterStorage) async throws -> Void) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        guard let storage = try storage(kind, in: directory, now: now) else { return }
        let pool = (storage as? PostgresRegisterStorage).map { postgres in Task { await postgres.run() } }
        defer { pool?.cancel() }
        do {
            try await body(storage)
        } catch {
            // PostgreSQL's errors describe themselves only when reflected.
            throw HarnessError(String(reflecting: error))
        }
    }

    /// `device`'s `sequence`-th write to `account / timeline`, on `post`.
    static func head(
        _ post: String, device: String, seq: UInt64, account: String = "me", timeline: String = "home", millis: UInt64? = nil
    ) throws -> StoredHead {
        var record = ServerHarness.write(post, seq: seq, millis: millis ?? 1_790_000_000_000 + seq * 1000, device: device, account: account)
        record.key = RegisterKey(account: account, timeline: timeline)
        return try StoredHead(record)
    }

    static func user(_ storage: any RegisterStorage, _ name: String) async throws -> StoredUser {
        _ = try await storage.addToken(hash: ServerTokens.hash(ServerTokens.make()), user: name, at: Date(timeIntervalSince1970: 1_790_000_000))
        return try #require(try await storage.user(named: name))
    }

    @Test("export holds every register, head and token of the user, and no other user's", arguments: storages)
    func export(_ kind: String) async throws {
        try await Self.with(kind, now: Now(Date())) { storage in
            let alice = try await Self.user(storage, PostgresServerTests.user("alice"))
            let bob = try await Self.user(storage, PostgresServerTests.user("bob"))
            let heads = [
                try Self.head("p1", device: "phone", seq: 1), try Self.head("p2", device: "laptop", seq: 4),
                try Self.head("q1", device: "phone", seq: 2, timeline: "local"), try Self.head("r1", device: "phone", seq: 3, account: "work"),
            ]
            _ = try await storage.merge(heads, user: alice)
            _ = try await storage.merge([try Self.head("b1", device: "bobphone", seq: 1)], user: bob)
            let export = try await storage.export(user: alice)
            #expect(export.user == alice.name)
            #expect(export.tokens.count == 1 && export.tokens[0].revokedAt == nil)
            #expect(export.registers.map { "\($0.account)/\($0.timeline)" } == ["me/home", "me/local", "work/home"])
            #expect(export.headCount == 4 && export.erasedAt == nil)
            // The document is JSON; each head reads back as the write the device sent.
            let text = export.json(exportedAt: Date(timeIntervalSince1970: 1_790_000_100))
            let document = try Self.object(text)
            #expect(document["format"] as? String == "timeline-sync-export")
            #expect(document["exportedAt"] as? String == "2026-09-21T14:15:00Z")
            #expect((document["registers"] as? [Any])?.count == 3)
            let records = try Self.records(export.registers.flatMap(\.heads))
            #expect(Set(records.map { "\($0.device):\($0.snapshot?.postId ?? "")" }) == ["phone:p1", "laptop:p2", "phone:q1", "phone:r1"])
            #expect(!text.contains("b1") && !text.contains("bobphone"))
        }
    }

    @Test("erase removes every head and token and leaves a tombstone: old heads stay out, later writes come in", arguments: storages)
    func erase(_ kind: String) async throws {
        try await Self.with(kind, now: Now(Date())) { storage in
            let name = PostgresServerTests.user("carol")
            let carol = try await Self.user(storage, name)
            let other = try await Self.user(storage, PostgresServerTests.user("dave"))
            let old = [
                try Self.head("p1", device: "phone", seq: 5), try Self.head("p2", device: "laptop", seq: 9),
                try Self.head("q1", device: "phone", seq: 3, timeline: "local"),
            ]
            _ = try await storage.merge(old, user: carol)
            _ = try await storage.merge([try Self.head("d1", device: "phone", seq: 1)], user: other)
            let before = try await storage.cursor(user: carol)
            let erasure = try await storage.erase(user: carol, at: Date(timeIntervalSince1970: 1_790_000_500))
            #expect(erasure == UserErasure(registers: 2, heads: 3, tokens: 1, devices: 2, tokenHashes: erasure.tokenHashes, cursor: before + 1))
            #expect(erasure.tokenHashes.count == 1)
            let after = try await storage.export(user: carol)
            #expect(after.registers.isEmpty && after.tokens.isEmpty)
            #expect(after.erasedAt == Date(timeIntervalSince1970: 1_790_000_500))
            // A device still holding its old heads sends them: none comes back.
            let resent = try await storage.merge(old, user: carol)
            #expect(resent.changed == 0)
            #expect(try await storage.read(user: carol, since: nil).records.isEmpty)
            // Saves made offline before the erasure, sent after it: a later write of a device
            // it knew, and a new device's. In the clear, their time tells: refused.
            let offline = try await storage.merge(
                [try Self.head("p8", device: "phone", seq: 6), try Self.head("t0", device: "tablet", seq: 1)], user: carol)
            #expect(offline.changed == 0)
            // A later write of a device, and a new device's, made after the erasure, are new data.
            let after500 = UInt64(1_790_000_500_001)
            let later = try await storage.merge(
                [try Self.head("p9", device: "phone", seq: 7, millis: after500), try Self.head("t1", device: "tablet", seq: 2, millis: after500)],
                user: carol)
            #expect(later.changed == 2)
            #expect(try await storage.export(user: carol).headCount == 2)
            // A sealed write hides its time: one no later than the device's place in the
            // tombstone stays out; a later one is taken in, whenever it was made.
            let resealed = SealedRecord(
                key: RegisterKey(account: "me", timeline: "local"), device: "laptop", sequence: 9, clocksRevision: 0, keyId: "k1",
                box: Array(repeating: 1, count: 48))
            #expect(try await storage.merge([StoredHead(resealed)], user: carol).changed == 0)
            let sealed = SealedRecord(
                key: RegisterKey(account: "me", timeline: "local"), device: "laptop", sequence: 10, clocksRevision: 0, keyId: "k1",
                box: Array(repeating: 1, count: 48))
            #expect(try await storage.merge([StoredHead(sealed)], user: carol).changed == 1)
            #expect(try await storage.merge([StoredHead(sealed)], user: carol).changed == 0)
            // Another user's data is untouched, and the user's name can be given a token again.
            #expect(try await storage.export(user: other).headCount == 1)
            #expect(try await storage.user(named: name) == carol)
        }
    }

    @Test(
        "a merge whose token was erased or revoked after the request was let in stores nothing; the operator's merges need none", arguments: storages)
    func mergeChecksItsToken(_ kind: String) async throws {
        try await Self.with(kind, now: Now(Date())) { storage in
            let name = PostgresServerTests.user("erin")
            let hash = ServerTokens.hash(ServerTokens.make())
            let tokenID = try await storage.addToken(hash: hash, user: name, at: Date(timeIntervalSince1970: 1_790_000_000))
            let erin = try #require(try await storage.user(named: name))
            #expect(try await storage.merge([try Self.head("p1", device: "phone", seq: 1)], user: erin, token: hash).changed == 1)
            // Revoked between the request's check and its merge: one head, and several.
            #expect(try await storage.revokeToken(id: tokenID, at: Date(timeIntervalSince1970: 1_790_000_100)))
            await #expect(throws: TokenGone()) {
                try await storage.merge([try Self.head("p2", device: "phone", seq: 2)], user: erin, token: hash)
            }
            await #expect(throws: TokenGone()) {
                try await storage.merge(
                    [try Self.head("p3", device: "phone", seq: 3), try Self.head("q1", device: "laptop", seq: 1)], user: erin, token: hash)
            }
            // Erased between the check and the merge, with a token that was valid until then.
            let second = ServerTokens.hash(ServerTokens.make())
            _ = try await storage.addToken(hash: second, user: name, at: Date(timeIntervalSince1970: 1_790_000_200))
            _ = try await storage.erase(user: erin, at: Date(timeIntervalSince1970: 1_790_000_300))
            await #expect(throws: TokenGone()) {
                try await storage.merge([try Self.head("p9", device: "phone", seq: 9)], user: erin, token: second)
            }
            #expect(try await storage.read(user: erin, since: nil).records.isEmpty)
            // Without a token (the operator's commands), a later write is taken in.
            #expect(try await storage.merge([try Self.head("p9", device: "phone", seq: 9, millis: 1_790_000_300_001)], user: erin).changed == 1)
        }
    }

    @Test(
        "a user's heads are bounded: a merge that would pass the bound stores nothing; heads replaced count once; an erasure and retention free room",
        arguments: storages)
    func headsBounded(_ kind: String) async throws {
        let now = Now(Date(timeIntervalSince1970: 1_790_000_000))
        try await Self.with(kind, now: now) { storage in
            let ida = try await Self.user(storage, PostgresServerTests.user("ida"))
            let other = try await Self.user(storage, PostgresServerTests.user("jon"))
            func heads(_ device: String, _ timelines: Range<Int>, seq: UInt64) throws -> [StoredHead] {
                try timelines.map { try Self.head("p\(seq)", device: device, seq: seq, timeline: "t\($0)") }
            }
            #expect(try await storage.merge(try heads("phone", 0..<3, seq: 1), user: ida, token: nil, maxHeads: 5).changed == 3)
            await #expect(throws: QuotaFull(held: 3, adding: 3, limit: 5)) {
                try await storage.merge(try heads("laptop", 0..<3, seq: 1), user: ida, token: nil, maxHeads: 5)
            }
            #expect(try await storage.export(user: ida).headCount == 3)
            // Later writes of heads held are taken at the bound; so are new heads up to it.
            #expect(try await storage.merge(try heads("phone", 0..<3, seq: 2), user: ida, token: nil, maxHeads: 3).changed == 3)
            #expect(try await storage.merge(try heads("laptop", 0..<2, seq: 1), user: ida, token: nil, maxHeads: 5).changed == 2)
            await #expect(throws: QuotaFull(held: 5, adding: 1, limit: 5)) {
                try await storage.merge(try heads("tablet", 0..<1, seq: 1), user: ida, token: nil, maxHeads: 5)
            }
            // Another user's room is their own.
            #expect(try await storage.merge(try heads("phone", 0..<5, seq: 1), user: other, token: nil, maxHeads: 5).changed == 5)
            // Retention drops the laptop's two heads: room for two.
            now.set(Date(timeIntervalSince1970: 1_790_100_000))
            _ = try await storage.merge(try heads("phone", 0..<3, seq: 3), user: ida, token: nil, maxHeads: 5)
            #expect(try await storage.dropHeads(writtenBefore: Date(timeIntervalSince1970: 1_790_050_000)) == 7)
            #expect(try await storage.merge(try heads("tablet", 0..<2, seq: 1), user: ida, token: nil, maxHeads: 5).changed == 2)
            // An erasure frees every place.
            _ = try await storage.erase(user: ida, at: Date(timeIntervalSince1970: 1_790_100_100))
            let later = UInt64(1_790_100_200_000)
            let fresh = try (0..<5).map { try Self.head("q", device: "phone", seq: 10, timeline: "u\($0)", millis: later) }
            #expect(try await storage.merge(fresh, user: ida, token: nil, maxHeads: 5).changed == 5)
        }
    }

    @Test("a write past the user's bound on heads gets 403 saying so, is counted, and the user's other writes go on")
    func headsBoundedOverHTTP() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let harness = try await ServerHarness.start(
            try SQLiteRegisterStorage(path: directory.appendingPathComponent("server.sqlite").path), maxHeadsPerUser: 4)
        do {
            let token = try await harness.token(for: "liv")
            func document(_ device: String, _ accounts: Range<Int>, seq: UInt64) -> String {
                ServerHarness.document(
                    accounts.map { ServerHarness.write("p\(seq)", seq: seq, millis: 1_790_000_000_000 + seq, device: device, account: "a\($0)") },
                    device: device)
            }
            #expect(try await harness.request(.POST, "/v1/registers", token: token, body: document("phone", 0..<3, seq: 1)).status == 200)
            let refused = try await harness.request(.POST, "/v1/registers", token: token, body: document("laptop", 0..<3, seq: 1))
            #expect(refused.status == 403)
            #expect(
                refused.body
                    == #"{"error":"this user has 3 heads (a device's latest write to a register) and the server keeps at most 4; this write would add 3: nothing of it was stored"}"#
            )
            // The phone's next writes to its registers go on.
            #expect(
                try await harness.request(.POST, "/v1/registers", token: token, body: document("phone", 0..<3, seq: 2)).body.hasPrefix(
                    #"{"changed":3,"#))
            let metrics = try await harness.request(.GET, "/metrics").body
            #expect(metrics.contains("timeline_sync_quota_refusals_total 1\n"), "\(metrics)")
            #expect(metrics.contains(#"timeline_sync_requests_total{route="/v1/registers",method="POST",status="403"} 1"#))
        } catch {
            try? await harness.stop()
            throw error
        }
        try await harness.stop()
    }

    @Test("concurrent writes of one user never pass the bound on heads together", arguments: storages)
    func headsBoundedConcurrently(_ kind: String) async throws {
        try await Self.with(kind, now: Now(Date())) { storage in
            let user = try await Self.user(storage, PostgresServerTests.user("kim"))
            // Twelve requests of three new heads each, at once, under a bound of ten.
            let stored = try await withThrowingTaskGroup(of: Int.self) { group in
                for request in 0..<12 {
                    group.addTask {
                        let heads = try (0..<3).map { try Self.head("p", device: "d\(request)", seq: 1, timeline: "t\($0)") }
                        do {
                            return try await storage.merge(heads, user: user, token: nil, maxHeads: 10).changed
                        } catch is QuotaFull {
                            return 0
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(stored == 9)
            #expect(try await storage.export(user: user).headCount == 9)
        }
    }

    @Test("a server database edited by hand (text where a time belongs) makes a read fail with an error, not stop the server")
    func damagedColumns() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("server.sqlite").path
        let storage = try SQLiteRegisterStorage(path: path)
        let user = try await Self.user(storage, "mia")
        _ = try await storage.merge([try Self.head("p1", device: "phone", seq: 1)], user: user)
        let editor = try DatabaseQueue(path: path)
        try await editor.write { db in try db.execute(sql: "UPDATE token SET createdAt = 'yesterday'") }
        try editor.close()
        await #expect(throws: (any Error).self) { try await storage.tokens() }
        await #expect(throws: (any Error).self) { try await storage.export(user: user) }
        // What the edit did not touch still answers.
        #expect(try await storage.read(user: user, since: nil).records.count == 1)
    }

    @Test("writes racing DELETE /v1/user: whatever each was answered, none is stored after the erasure", arguments: storages)
    func writesRacingErasure(_ kind: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        guard let storage = try Self.storage(kind, in: directory, now: Now(Date())) else { return }
        let harness = try await ServerHarness.start(storage)
        do {
            let name = PostgresServerTests.user("grace")
            for round in 0..<3 {
                let token = try await harness.token(for: name)
                let user = try #require(try await storage.user(named: name))
                // Six devices write as fast as they can until their token is refused (at most
                // 300 writes each); the erasure comes while they do.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for writer in 0..<6 {
                        group.addTask {
                            for sequence in 1...300 {
                                let write = ServerHarness.write(
                                    "p\(sequence)", seq: UInt64(sequence), millis: 1_790_000_000_000 + UInt64(sequence), device: "d\(writer)-\(round)"
                                )
                                let answer = try await harness.request(
                                    .POST, "/v1/registers", token: token, body: ServerHarness.document([write], device: "d\(writer)-\(round)"))
                                if answer.status == 401 { return }
                                #expect(answer.status == 200, "\(answer.body)")
                            }
                        }
                    }
                    group.addTask {
                        try await Task.sleep(for: .milliseconds(30))
                        let erased = try await harness.request(.DELETE, "/v1/user", token: token)
                        #expect(erased.status == 200, "\(erased.body)")
                    }
                    try await group.waitForAll()
                }
                let left = try await storage.read(user: user, since: nil).records
                #expect(left == [], "round \(round): \(left)")
            }
        } catch {
            try? await harness.stop()
            throw HarnessError(String(reflecting: error))
        }
        try await harness.stop()
    }

    @Test("retention drops every head of a device not written since the cutoff, and keeps a device written to any register", arguments: storages)
    func retention(_ kind: String) async throws {
        let start = Date().addingTimeInterval(-40 * 86_400)
        let now = Now(start)
        try await Self.with(kind, now: now) { storage in
            let erin = try await Self.user(storage, PostgresServerTests.user("erin"))
            // Forty days ago: an old tablet, and the phone, on two timelines.
            _ = try await storage.merge(
                [try Self.head("a", device: "tablet", seq: 1), try Self.head("b", device: "phone", seq: 1, timeline: "local")], user: erin)
            _ = try await storage.merge([try Self.head("c", device: "tablet", seq: 2, timeline: "local")], user: erin)
            // A day ago, the phone wrote to home only.
            now.set(Date().addingTimeInterval(-86_400))
            _ = try await storage.merge([try Self.head("d", device: "phone", seq: 2)], user: erin)
            let dropped = try await storage.dropHeads(writtenBefore: Date().addingTimeInterval(-30 * 86_400))
            #expect(dropped >= 2)
            let kept = try Self.records(try await storage.read(user: erin, since: nil).records)
            #expect(Set(kept.map { "\($0.device)/\($0.key.timeline)" }) == ["phone/home", "phone/local"])
        }
    }

    @Test("GET /v1/user exports the token's user; DELETE /v1/user erases it, the token with it; old heads do not come back")
    func overHTTP() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let harness = try await ServerHarness.start(try SQLiteRegisterStorage(path: directory.appendingPathComponent("server.sqlite").path))
        do {
            let token = try await harness.token(for: "frank")
            let writes = [ServerHarness.write("p1", seq: 1, millis: 1_790_000_000_000), ServerHarness.write("p2", seq: 2, millis: 1_790_000_001_000)]
            let stored = try await harness.request(.POST, "/v1/registers", token: token, body: ServerHarness.document(writes))
            #expect(stored.status == 200)
            let exported = try await harness.request(.GET, "/v1/user", token: token)
            #expect(exported.status == 200)
            let document = try Self.object(exported.body)
            #expect(document["user"] as? String == "frank")
            #expect((document["registers"] as? [Any])?.count == 1)
            #expect(try await harness.request(.POST, "/v1/user", token: token).allow == "GET, DELETE")
            let erased = try await harness.request(.DELETE, "/v1/user", token: token)
            #expect(erased.status == 200)
            #expect(erased.body == #"{"erased":{"registers":1,"heads":1,"tokens":1,"devices":1}}"#)
            // The token is gone with the rest, within the token cache's second.
            try await Deadline.wait(seconds: 60, "the erased token refused") {
                try await harness.request(.GET, "/v1/registers", token: token).status == 401
            }
            let fresh = try await harness.token(for: "frank")
            let resent = try await harness.request(.POST, "/v1/registers", token: fresh, body: ServerHarness.document(writes))
            #expect(resent.body.hasPrefix(#"{"changed":0,"#))
            let read = try await harness.request(.GET, "/v1/registers", token: fresh)
            #expect(try ServerHarness.heads(read.body).isEmpty)
        } catch {
            try? await harness.stop()
            throw error
        }
        try await harness.stop()
    }
}
#endif
