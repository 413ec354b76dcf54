import AsyncHTTPClient
import Foundation
import FurthestRead
import NIOHTTP1
import LastWriterWins
import SyncModel
import SyncServer
import Testing
import TestSupport

/// The sync server over SQLite, in this process, on a loopback port.
@Suite("Sync server")
struct SyncServerTests {
    static func withServer(policy: any MergePolicy = LastWriterWinsPolicy(), maxBodyBytes: Int = 64 << 10, maxRecords: Int = 100,
                           _ body: (ServerHarness) async throws -> Void) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try SQLiteRegisterStorage(path: directory.appendingPathComponent("server.sqlite").path)
        let harness = try await ServerHarness.start(storage, policy: policy, maxBodyBytes: maxBodyBytes, maxRecords: maxRecords)
        do {
            try await body(harness)
        } catch {
            try? await harness.stop()
            throw error
        }
        try await harness.stop()
    }

    @Test("a stale write never wins: the database keeps the greater write by the policy's order")
    func staleWriteLoses() async throws {
        try await Self.withServer { server in
            let token = try await server.token(for: "alice")
            let newer = ServerHarness.write("p9", millis: 2_000, device: "laptop"), older = ServerHarness.write("p1", millis: 1_000)
            let first = try await server.request(.POST, "/v1/registers", token: token, body: ServerHarness.document([newer], device: "laptop"))
            #expect(first.status == 200)
            #expect(first.body == #"{"changed":2,"cursor":1}"#)
            let second = try await server.request(.POST, "/v1/registers", token: token, body: ServerHarness.document([older]))
            // The phone's own latest is new (one row); the register keeps the laptop's.
            #expect(second.body == #"{"changed":1,"cursor":2}"#)
            let again = try await server.request(.POST, "/v1/registers", token: token, body: ServerHarness.document([older]))
            #expect(again.body == #"{"changed":0,"cursor":2}"#)
            let read = try await server.request(.GET, "/v1/registers", token: token)
            #expect(read.status == 200)
            #expect(try ServerHarness.winners(read.body) == ["me/home": "p9"])
            let document = try SyncWireCoding.decode(Data(read.body.utf8))
            #expect(document.cursor == 2)
            #expect(Set(document.records.map(\.device)) == ["phone", "laptop"])
        }
    }

    @Test("FurthestRead runs in the database too: a later write further back loses")
    func furthestReadInTheDatabase() async throws {
        try await Self.withServer(policy: FurthestReadPolicy()) { server in
            let token = try await server.token(for: "alice")
            func write(_ post: String, created: Double, millis: UInt64) -> PositionRecord {
                var record = ServerHarness.write(post, millis: millis)
                record.progress = .init(createdAt: created, postId: post)
                return record
            }
            _ = try await server.request(.POST, "/v1/registers", token: token, body: ServerHarness.document([write("p9", created: 900, millis: 1_000)]))
            _ = try await server.request(.POST, "/v1/registers", token: token,
                                         body: ServerHarness.document([write("p1", created: 100, millis: 2_000)], device: "laptop"))
            let read = try await server.request(.GET, "/v1/registers", token: token)
            #expect(try ServerHarness.winners(read.body, policy: FurthestReadPolicy()) == ["me/home": "p9"])
        }
    }

    @Test("user A can neither read nor write user B's registers, whatever the request names")
    func usersAreIsolated() async throws {
        try await Self.withServer { server in
            let alice = try await server.token(for: "alice"), bob = try await server.token(for: "bob")
            _ = try await server.request(.POST, "/v1/registers", token: alice, body: ServerHarness.document([ServerHarness.write("a1", millis: 1_000)]))
            // Bob writes the same account and timeline names, later, and a body that names alice.
            var forged = ServerHarness.document([ServerHarness.write("b1", millis: 5_000, device: "alice-phone")], device: "alice")
            forged = forged.replacingOccurrences(of: #""version":1,"#, with: #""version":1,"user":"alice","userId":1,"#)
            #expect(try await server.request(.POST, "/v1/registers", token: bob, body: forged).status == 200)
            #expect(try ServerHarness.winners(try await server.request(.GET, "/v1/registers", token: alice).body) == ["me/home": "a1"])
            #expect(try ServerHarness.winners(try await server.request(.GET, "/v1/registers", token: bob).body) == ["me/home": "b1"])
            // Paths naming a user do not exist; query parameters naming one are ignored.
            for path in ["/v1/users/alice/registers", "/v1/registers/alice", "/v1/registers?user=alice", "/v1/registers?userId=1"] {
                let answer = try await server.request(.GET, path, token: bob)
                let seen = answer.status == 404 ? [:] : try ServerHarness.winners(answer.body)
                #expect(answer.status == 404 || seen == ["me/home": "b1"], "\(path)")
            }
            #expect(try await server.request(.GET, "/v1/users/alice/registers", token: bob).body
                == #"{"error":"no such endpoint: GET /v1/users/alice/registers"}"#)
        }
    }

    @Test("bad requests get a 4xx with a JSON error, verbatim, and nothing half-written is stored")
    func badRequests() async throws {
        try await Self.withServer(maxBodyBytes: 4096, maxRecords: 3) { server in
            let token = try await server.token(for: "alice")
            let good = ServerHarness.document([ServerHarness.write("p1", millis: 1_000)])
            var halfBad = ServerHarness.document([ServerHarness.write("p2", millis: 2_000), ServerHarness.write("p3", millis: 3_000)])
            halfBad = halfBad.replacingOccurrences(of: #""hlc":"000000000bb80000""#, with: #""hlc":"later""#)
            let cases: [(String?, String?, Int, String)] = [
                (nil, good, 401, #"{"error":"missing bearer token: send Authorization: Bearer TOKEN"}"#),
                ("tes_nope", good, 401, #"{"error":"unknown or revoked token"}"#),
                (token, "{", 400, #"{"error":"not a sync document: not JSON: 1:2: expected a string key, found end of input"}"#),
                (token, #"{"format":"timeline-sync","version":2,"device":"d","records":[]}"#, 400,
                 #"{"error":"not a sync document: version 2 is not supported; this engine reads version 1"}"#),
                (token, #"{"format":"timeline-sync","version":1,"device":"d","records":{}}"#, 400,
                 #"{"error":"not a sync document: \"records\" must be an array"}"#),
                (token, halfBad, 400, #"{"error":"not a sync document: records[1].hlc must be a hybrid timestamp: 16 hexadecimal digits"}"#),
                (token, String(repeating: " ", count: 5000), 413, #"{"error":"the body is larger than 4096 bytes"}"#),
                (token, ServerHarness.document((1...4).map { ServerHarness.write("p\($0)", millis: UInt64($0) * 1000) }), 413,
                 #"{"error":"4 writes in one request; at most 3"}"#),
            ]
            for (token, body, status, message) in cases {
                let answer = try await server.request(.POST, "/v1/registers", token: token, body: body)
                #expect(answer.status == status, "\(message)")
                #expect(answer.body == message)
            }
            #expect(try await server.request(.GET, "/v1/registers?since=-1", token: token).body
                == #"{"error":"since must be a non-negative integer, found -1"}"#)
            #expect(try await server.request(.GET, "/v1/registers?since=0&wait=soon", token: token).body
                == #"{"error":"wait must be a number of seconds, found soon"}"#)
            // Nothing of the refused writes was kept.
            #expect(try await server.request(.GET, "/v1/registers", token: token).body
                == #"{"format":"timeline-sync","version":1,"device":"server","cursor":0,"records":[]}"#)
        }
    }

    @Test("a long-poll waits for a change, wakes when another device writes, and otherwise answers after its wait")
    func longPoll() async throws {
        try await Self.withServer { server in
            let token = try await server.token(for: "alice")
            let clock = ContinuousClock()
            let started = clock.now
            let quiet = try await server.request(.GET, "/v1/registers?since=0&wait=0.3", token: token)
            #expect(quiet.status == 200)
            #expect(clock.now - started >= .milliseconds(250))
            async let woken = server.request(.GET, "/v1/registers?since=0&wait=20", token: token)
            // Wait until the long-poll is waiting, then write.
            while await server.server.waiters.count == 0 { try await Task.sleep(for: .milliseconds(10)) }
            _ = try await server.request(.POST, "/v1/registers", token: token, body: ServerHarness.document([ServerHarness.write("p5", millis: 1_000)]))
            let answer = try await woken
            #expect(try ServerHarness.winners(answer.body) == ["me/home": "p5"])
            #expect(try SyncWireCoding.decode(Data(answer.body.utf8)).cursor == 1)
            // A cursor already passed answers at once.
            #expect(try await server.request(.GET, "/v1/registers?since=0&wait=20", token: token).status == 200)
        }
    }

    @Test("a graceful shutdown answers the long-polls waiting")
    func shutdownAnswersLongPolls() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ServerHarness.start(try SQLiteRegisterStorage(path: directory.appendingPathComponent("s.sqlite").path), maxWait: 60)
        let token = try await server.token(for: "alice")
        async let polled = server.request(.GET, "/v1/registers?since=0&wait=60", token: token)
        while await server.server.waiters.count == 0 { try await Task.sleep(for: .milliseconds(10)) }
        try await server.stop()
        #expect(try await polled.status == 200)
    }

    @Test("health, metrics, and a revoked token")
    func healthMetricsRevocation() async throws {
        try await Self.withServer { server in
            #expect(try await server.request(.GET, "/health").body == #"{"status":"ok"}"#)
            let token = try await server.token(for: "alice")
            _ = try await server.request(.POST, "/v1/registers", token: token, body: ServerHarness.document([ServerHarness.write("p5", millis: 1_000)]))
            let metrics = try await server.request(.GET, "/metrics")
            #expect(metrics.body.contains(#"timeline_sync_requests_total{route="/v1/registers",method="POST",status="200"} 1"#))
            #expect(metrics.body.contains("timeline_sync_rows_changed_total 2"))
            let tokens = try await server.server.storage.tokens()
            #expect(try await server.server.storage.revokeToken(id: tokens[0].id, at: Date()))
            #expect(try await server.server.storage.revokeToken(id: tokens[0].id, at: Date()) == false)
            #expect(try await server.request(.GET, "/v1/registers", token: token).status == 401)
        }
    }

    /// A policy that cannot give order keys.
    struct Unordered: MergePolicy {
        var name: String { "Unordered" }
        func precedes(_ lhs: PositionRecord, _ rhs: PositionRecord) -> Bool { lhs.stamp < rhs.stamp }
    }

    @Test("a merge policy without order keys is refused: the database could not merge by it")
    func policyWithoutKeys() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try SQLiteRegisterStorage(path: directory.appendingPathComponent("s.sqlite").path)
        #expect(throws: StorageError.self) { try SyncServer(storage: storage, settings: ServerSettings(policy: Unordered()), logger: ServerHarness.logger) }
    }
}
