#if SyncServer
import AsyncHTTPClient
import Foundation
import GRDB
import NIOHTTP1
import TimelineEngineSyncModel
import TimelineEngineSyncServer
import TimelineEngineSyncWire
import Testing
import TimelineEngineTestSupport

/// The sync server over SQLite, in this process, on a loopback port. The oracle is what the
/// server answers (its heads, `changed` and `cursor`), never a merge done again on the client.
@Suite("Sync server", .timeLimit(.minutes(10)))
struct SyncServerTests {
    @Test("loopback is localhost, ::1 or 127.0.0.0/8 written as an address, never a host name that begins with 127.")
    func loopback() {
        for host in ["localhost", "::1", "[::1]", "127.0.0.1", "127.1.2.3", "127.255.255.255"] {
            #expect(ServerSettings.isLoopback(host), "\(host)")
        }
        for host in [
            "127.0.0.1.evil.example", "127.example.com", "127.0.0", "127.0.0.256", "127.0.0.1.", "0.0.0.0", "128.0.0.1", "localhost.example", "",
        ] {
            #expect(!ServerSettings.isLoopback(host), "\(host)")
        }
    }

    static func withServer(maxBodyBytes: Int = 64 << 10, maxRecords: Int = 100, _ body: (ServerHarness) async throws -> Void) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try SQLiteRegisterStorage(path: directory.appendingPathComponent("server.sqlite").path)
        try await withServer(storage, maxBodyBytes: maxBodyBytes, maxRecords: maxRecords, body)
    }

    /// `body` with a server on `storage`, stopped afterwards whatever happens.
    static func withServer(
        _ storage: any RegisterStorage, maxBodyBytes: Int = 64 << 10, maxRecords: Int = 100,
        _ body: (ServerHarness) async throws -> Void
    ) async throws {
        let harness = try await ServerHarness.start(storage, maxBodyBytes: maxBodyBytes, maxRecords: maxRecords)
        do {
            try await body(harness)
        } catch {
            try? await harness.stop()
            throw error
        }
        try await harness.stop()
    }

    @Test("a stale write never replaces a device's head: the database keeps each device's latest write by sequence")
    func staleWriteLoses() async throws {
        try await Self.withServer { server in
            let token = try await server.token(for: "alice")
            let laptop = ServerHarness.write("p9", seq: 2, millis: 2_000, device: "laptop")
            let phone = ServerHarness.write("p1", seq: 1, millis: 1_000)
            let first = try await server.request(.POST, "/v1/registers", token: token, body: ServerHarness.document([laptop], device: "laptop"))
            #expect(first.status == 200)
            #expect(first.body == #"{"changed":1,"cursor":1}"#)
            let second = try await server.request(.POST, "/v1/registers", token: token, body: ServerHarness.document([phone]))
            #expect(second.body == #"{"changed":1,"cursor":2}"#)
            let again = try await server.request(.POST, "/v1/registers", token: token, body: ServerHarness.document([phone]))
            #expect(again.body == #"{"changed":0,"cursor":2}"#)
            // The laptop's first write arrives late, with a later clock: its head stays the second.
            let late = ServerHarness.write("p3", seq: 1, millis: 9_000, device: "laptop")
            #expect(
                try await server.request(.POST, "/v1/registers", token: token, body: ServerHarness.document([late], device: "laptop")).body
                    == #"{"changed":0,"cursor":2}"#)
            let read = try await server.request(.GET, "/v1/registers", token: token)
            #expect(read.status == 200)
            #expect(try ServerHarness.heads(read.body) == ["me/home/laptop": "p9#2", "me/home/phone": "p1#1"])
            #expect(try SyncWireCoding.decode(Data(read.body.utf8)).cursor == 2)
        }
    }

    @Test("a request with several writes per register and device keeps each device's latest, in any order")
    func batches() async throws {
        try await Self.withServer { server in
            let token = try await server.token(for: "alice")
            let writes = [
                ServerHarness.write("l1", seq: 1, millis: 1_000, device: "laptop"),
                ServerHarness.write("l3", seq: 3, millis: 3_000, device: "laptop"),
                ServerHarness.write("l2", seq: 2, millis: 2_000, device: "laptop"), ServerHarness.write("p5", seq: 5, millis: 5_000),
                ServerHarness.write("p4", seq: 4, millis: 4_000), ServerHarness.write("w7", seq: 7, millis: 7_000, account: "work"),
            ]
            #expect(
                try await server.request(.POST, "/v1/registers", token: token, body: ServerHarness.document(writes)).body
                    == #"{"changed":3,"cursor":1}"#)
            // The same batch again, reversed: nothing changes, the counter stays.
            #expect(
                try await server.request(.POST, "/v1/registers", token: token, body: ServerHarness.document(writes.reversed())).body
                    == #"{"changed":0,"cursor":1}"#)
            #expect(
                try ServerHarness.heads(try await server.request(.GET, "/v1/registers", token: token).body)
                    == ["me/home/laptop": "l3#3", "me/home/phone": "p5#5", "work/home/phone": "w7#7"])
        }
    }

    /// Writes to six registers that share one (clock, device) stamp: each is its own head.
    static let sharedStamp = (1...6).map { ServerHarness.write("p\($0)", seq: UInt64($0), millis: 5_000, account: "a\($0)") }

    @Test("writes to different registers that share one stamp are each stored and each read back")
    func sharedStampSQLite() async throws {
        try await Self.withServer { server in
            let token = try await server.token(for: "alice")
            #expect(
                try await server.request(.POST, "/v1/registers", token: token, body: ServerHarness.document(Self.sharedStamp)).body
                    == #"{"changed":6,"cursor":1}"#)
            #expect(
                try ServerHarness.heads(try await server.request(.GET, "/v1/registers", token: token).body)
                    == Dictionary(uniqueKeysWithValues: (1...6).map { ("a\($0)/home/phone", "p\($0)#\($0)") }))
        }
        var replica = ReplicaState()
        #expect(replica.apply(contentsOf: Self.sharedStamp) == 6)
        #expect(replica.records.count == 6)
    }

    @Test("a method an endpoint does not answer is a 405 naming the ones it does, in Allow and in the JSON error")
    func methodNotAllowed() async throws {
        try await Self.withServer { server in
            for (method, path, allowed) in [
                (HTTPMethod.DELETE, "/v1/registers", "GET, POST"), (.PUT, "/v1/registers", "GET, POST"),
                (.POST, "/health", "GET"), (.POST, "/metrics", "GET"),
            ] {
                let answer = try await server.request(method, path)
                #expect(answer.status == 405)
                #expect(answer.allow == allowed)
                #expect(
                    answer.body
                        == #"{"error":"\#(method) is not allowed on \#(path); use \#(allowed.replacingOccurrences(of: ", ", with: " or "))"}"#)
            }
            let missing = try await server.request(.GET, "/v2/registers")
            #expect(missing.status == 404)
            #expect(missing.body == #"{"error":"no such endpoint: GET /v2/registers"}"#)
        }
    }

    /// SQLite's storage, observed: it counts the token and cursor reads, and when `writeError`
    /// is set its writes fail with it, as a full disk's or a read-only file's do.
    struct ObservedStorage: RegisterStorage {
        let base: SQLiteRegisterStorage
        var writeError: DatabaseError?
        let tokenReads = Counter()
        let cursorReads = Counter()
        let registerReads = Counter()
        /// Each group announced, and how many long-polls were waiting when it was sent.
        let announcements = Announcements()
        /// The server on this storage, once started, for `announcements`.
        let server = ServerSlot()
        func user(forTokenHash hash: [UInt8]) async throws -> StoredUser? {
            tokenReads.increment()
            return try await base.user(forTokenHash: hash)
        }
        func addToken(hash: [UInt8], user: String, at date: Date) async throws -> Int64 {
            try await base.addToken(hash: hash, user: user, at: date)
        }
        func revokeToken(id: Int64, at date: Date) async throws -> Bool { try await base.revokeToken(id: id, at: date) }
        func tokens() async throws -> [StoredToken] { try await base.tokens() }
        func read(user: StoredUser, since: Int64?) async throws -> (cursor: Int64, records: [String]) {
            registerReads.increment()
            return try await base.read(user: user, since: since)
        }
        func cursor(user: StoredUser) async throws -> Int64 {
            cursorReads.increment()
            return try await base.cursor(user: user)
        }
        func merge(_ heads: [StoredHead], user: StoredUser, token: [UInt8]?, maxHeads: Int?) async throws -> (changed: Int, cursor: Int64) {
            if let writeError { throw writeError }
            return try await base.merge(heads, user: user, token: token, maxHeads: maxHeads)
        }
        func announce(_ changes: [ChangeAnnouncement]) async throws {
            await announcements.record(changes, waiting: await server.waiters?.count ?? -1)
            try await base.announce(changes)
        }
        func check() async throws { try await base.check() }
        func user(named name: String) async throws -> StoredUser? { try await base.user(named: name) }
        func export(user: StoredUser) async throws -> UserExport { try await base.export(user: user) }
        func erase(user: StoredUser, at date: Date) async throws -> UserErasure {
            if let writeError { throw writeError }
            return try await base.erase(user: user, at: date)
        }
        func dropHeads(writtenBefore cutoff: Date) async throws -> Int { try await base.dropHeads(writtenBefore: cutoff) }
        /// As another instance's changes would come, when set: the server then announces its own.
        var remoteEvents: AsyncStream<RemoteEvent>?
    }

    @Test("a full disk is named to the client (507), and /health says writes fail while reads still answer")
    func fullDisk() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = try SQLiteRegisterStorage(path: directory.appendingPathComponent("server.sqlite").path)
        let server = try await ServerHarness.start(
            ObservedStorage(base: base, writeError: DatabaseError(resultCode: .SQLITE_FULL, message: "database or disk is full")))
        do {
            let token = try await server.token(for: "alice")
            #expect(try await server.request(.GET, "/health").body == #"{"status":"ok"}"#)
            let refused = try await server.request(
                .POST, "/v1/registers", token: token, body: ServerHarness.document([ServerHarness.write("p1", seq: 1, millis: 1_000)]))
            #expect(refused.status == 507)
            #expect(refused.body == #"{"error":"the server's disk is full; nothing was stored"}"#)
            let health = try await server.request(.GET, "/health")
            #expect(health.status == 503)
            #expect(health.body == #"{"error":"writes fail: the server's disk is full; nothing was stored"}"#)
            #expect(try await server.request(.GET, "/v1/registers", token: token).status == 200)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
        let readOnly = try await ServerHarness.start(
            ObservedStorage(base: base, writeError: DatabaseError(resultCode: .SQLITE_READONLY, message: "attempt to write a readonly database")))
        do {
            let token = try await readOnly.token(for: "bob")
            let refused = try await readOnly.request(
                .POST, "/v1/registers", token: token, body: ServerHarness.document([ServerHarness.write("p1", seq: 1, millis: 1_000)]))
            #expect(refused.status == 503)
            #expect(refused.body == #"{"error":"the server's store cannot be written (read-only); nothing was stored"}"#)
        } catch {
            try? await readOnly.stop()
            throw error
        }
        try await readOnly.stop()
    }

    @Test("a long-poll from a cursor answers only the heads changed after it")
    func changesSinceCursor() async throws {
        try await Self.withServer { server in
            let token = try await server.token(for: "alice")
            _ = try await server.request(
                .POST, "/v1/registers", token: token,
                body: ServerHarness.document([ServerHarness.write("l1", seq: 1, millis: 1_000, device: "laptop")], device: "laptop"))
            _ = try await server.request(
                .POST, "/v1/registers", token: token, body: ServerHarness.document([ServerHarness.write("p1", seq: 1, millis: 2_000)]))
            let since1 = try await server.request(.GET, "/v1/registers?since=1&wait=0", token: token)
            #expect(try ServerHarness.heads(since1.body) == ["me/home/phone": "p1#1"])
            #expect(try SyncWireCoding.decode(Data(since1.body.utf8)).cursor == 2)
            let since2 = try await server.request(.GET, "/v1/registers?since=2&wait=0", token: token)
            #expect(since2.body == #"{"format":"timeline-sync","version":2,"device":"server","cursor":2,"records":[]}"#)
        }
    }

    @Test("a version-1 document (a device of the previous release) is taken in as heads numbered by their clock")
    func versionOneWrites() async throws {
        try await Self.withServer { server in
            let token = try await server.token(for: "alice")
            let body = """
                {"format":"timeline-sync","version":1,"device":"old","records":[{"account":"me","timeline":"home","hlc":"0000000003e80000",\
                "device":"old","savedAt":"2026-09-21T12:26:40Z","epoch":{"hlc":"0000000000000000","device":""},"position":{"postId":"o1"}}]}
                """
            #expect(try await server.request(.POST, "/v1/registers", token: token, body: body).body == #"{"changed":1,"cursor":1}"#)
            #expect(try ServerHarness.heads(try await server.request(.GET, "/v1/registers", token: token).body) == ["me/home/old": "o1#1000"])
        }
    }

    @Test("a record is kept as it came, spaces and all, and answered so; one read through the value tree is written again")
    func recordsKeptAsReceived() async throws {
        try await Self.withServer { server in
            let token = try await server.token(for: "alice")
            let document = ServerHarness.document([ServerHarness.write("p1", seq: 1, millis: 1_000)])
            let spaced = document.replacingOccurrences(of: #","seq""#, with: #",\#n  "seq""#)
            let record = try #require(Self.records(of: spaced))
            #expect(try await server.request(.POST, "/v1/registers", token: token, body: spaced).body == #"{"changed":1,"cursor":1}"#)
            let read = try await server.request(.GET, "/v1/registers", token: token).body
            #expect(read == #"{"format":"timeline-sync","version":2,"device":"server","cursor":1,"records":["# + record + "]}")
            // An unknown member takes the value tree: the record is written again, without it.
            let unknown = ServerHarness.document([ServerHarness.write("p2", seq: 2, millis: 2_000)])
                .replacingOccurrences(of: #""account":"me""#, with: #""account":"me","mood":"happy""#)
            #expect(try await server.request(.POST, "/v1/registers", token: token, body: unknown).body == #"{"changed":1,"cursor":2}"#)
            let again = try await server.request(.GET, "/v1/registers", token: token).body
            let written = try #require(Self.records(of: ServerHarness.document([ServerHarness.write("p2", seq: 2, millis: 2_000)])))
            #expect(again == #"{"format":"timeline-sync","version":2,"device":"server","cursor":2,"records":["# + written + "]}")
            #expect(try ServerHarness.heads(again) == ["me/home/phone": "p2#2"])
        }
    }

    /// The text of a document's records array, without its brackets.
    static func records(of document: String) -> String? {
        document.firstRange(of: #""records":["#).map { String(document[$0.upperBound...].dropLast(2)) }
    }

    @Test("requests are counted by route, method and status, past the counters kept for them too")
    func requestCounts() {
        let metrics = ServerMetrics()
        for _ in 0..<3 { metrics.request(route: "/v1/registers", method: "POST", status: 200, nanoseconds: 1_000) }
        for number in 0..<300 { metrics.request(route: "other", method: "M\(number)", status: 404, nanoseconds: 1_000) }
        metrics.request(route: "other", method: "M299", status: 404, nanoseconds: 1_000)
        let text = metrics.text
        #expect(text.contains(#"timeline_sync_requests_total{route="/v1/registers",method="POST",status="200"} 3"#))
        #expect(text.contains(#"timeline_sync_requests_total{route="other",method="M0",status="404"} 1"#))
        #expect(text.contains(#"timeline_sync_requests_total{route="other",method="M299",status="404"} 2"#))
    }

    @Test("the bearer token is found whatever the scheme's case, with the spaces around it dropped; anything else is no token")
    func bearerTokens() {
        #expect(ServerTokens.bearer("Bearer tes_1") == "tes_1")
        #expect(ServerTokens.bearer("bEaReR   tes_1 \t") == "tes_1")
        for header in [nil, "", "Bearer", "Bearer ", "Bearer  \t ", "Basic dXNlcg==", "Bearer\ttes_1", "Bearertes_1", "Bearez tes_1"] {
            #expect(ServerTokens.bearer(header) == nil, "\(String(describing: header))")
        }
    }

    @Test("user A can neither read nor write user B's registers, whatever the request names")
    func usersAreIsolated() async throws {
        try await Self.withServer { server in
            let alice = try await server.token(for: "alice")
            let bob = try await server.token(for: "bob")
            _ = try await server.request(
                .POST, "/v1/registers", token: alice, body: ServerHarness.document([ServerHarness.write("a1", seq: 1, millis: 1_000)]))
            // Bob writes the same account, timeline and device names, later, and a body that names alice.
            var forged = ServerHarness.document([ServerHarness.write("b1", seq: 9, millis: 5_000)], device: "alice")
            forged = forged.replacingOccurrences(of: #""version":2,"#, with: #""version":2,"user":"alice","userId":1,"#)
            #expect(try await server.request(.POST, "/v1/registers", token: bob, body: forged).status == 200)
            #expect(try ServerHarness.heads(try await server.request(.GET, "/v1/registers", token: alice).body) == ["me/home/phone": "a1#1"])
            #expect(try ServerHarness.heads(try await server.request(.GET, "/v1/registers", token: bob).body) == ["me/home/phone": "b1#9"])
            // Paths naming a user do not exist; query parameters naming one are ignored.
            for path in ["/v1/users/alice/registers", "/v1/registers/alice", "/v1/registers?user=alice", "/v1/registers?userId=1"] {
                let answer = try await server.request(.GET, path, token: bob)
                let seen = answer.status == 404 ? [:] : try ServerHarness.heads(answer.body)
                #expect(answer.status == 404 || seen == ["me/home/phone": "b1#9"], "\(path)")
            }
            #expect(
                try await server.request(.GET, "/v1/users/alice/registers", token: bob).body
                    == #"{"error":"no such endpoint: GET /v1/users/alice/registers"}"#)
        }
    }

    @Test("bad requests get a 4xx with a JSON error, verbatim, and nothing half-written is stored")
    func badRequests() async throws {
        try await Self.withServer(maxBodyBytes: 4096, maxRecords: 3) { server in
            let token = try await server.token(for: "alice")
            let good = ServerHarness.document([ServerHarness.write("p1", seq: 1, millis: 1_000)])
            var halfBad = ServerHarness.document([
                ServerHarness.write("p2", seq: 2, millis: 2_000), ServerHarness.write("p3", seq: 3, millis: 3_000),
            ])
            halfBad = halfBad.replacingOccurrences(of: #""hlc":"000000000bb80000""#, with: #""hlc":"later""#)
            let cases: [(String?, String?, Int, String)] = [
                (nil, good, 401, #"{"error":"missing bearer token: send Authorization: Bearer TOKEN"}"#),
                ("tes_nope", good, 401, #"{"error":"unknown or revoked token"}"#),
                (token, "{", 400, #"{"error":"not a sync document: not JSON: 1:2: expected a string key, found end of input"}"#),
                (
                    token, #"{"format":"timeline-sync","version":3,"device":"d","records":[]}"#, 400,
                    #"{"error":"not a sync document: version 3 is not supported; this engine reads versions 1 to 2"}"#
                ),
                (
                    token, #"{"format":"timeline-sync","version":2,"device":"d","records":{}}"#, 400,
                    #"{"error":"not a sync document: \"records\" must be an array"}"#
                ),
                (token, halfBad, 400, #"{"error":"not a sync document: records[1].hlc must be a hybrid timestamp: 16 hexadecimal digits"}"#),
                (
                    token, good.replacingOccurrences(of: #""seq":1,"#, with: #""seq":0,"#), 400,
                    #"{"error":"not a sync document: records[0].seq must be a positive integer"}"#
                ),
                (token, String(repeating: " ", count: 5000), 413, #"{"error":"the body is larger than 4096 bytes: 5000 announced"}"#),
                (
                    token, ServerHarness.document((1...4).map { ServerHarness.write("p\($0)", seq: UInt64($0), millis: UInt64($0) * 1000) }), 413,
                    #"{"error":"4 writes in one request; at most 3"}"#
                ),
            ]
            for (token, body, status, message) in cases {
                let answer = try await server.request(.POST, "/v1/registers", token: token, body: body)
                #expect(answer.status == status, "\(message)")
                #expect(answer.body == message)
            }
            #expect(
                try await server.request(.GET, "/v1/registers?since=-1", token: token).body
                    == #"{"error":"since must be a non-negative integer, found -1"}"#)
            #expect(
                try await server.request(.GET, "/v1/registers?since=0&wait=soon", token: token).body
                    == #"{"error":"wait must be a number of seconds, found soon"}"#)
            // Nothing of the refused writes was kept.
            #expect(
                try await server.request(.GET, "/v1/registers", token: token).body
                    == #"{"format":"timeline-sync","version":2,"device":"server","cursor":0,"records":[]}"#)
        }
    }

    @Test("a body announced over the limit gets 413 at once, unread; a client that hangs up mid-body is counted as the client's, not a 500")
    func announcedBodyAndHangUp() async throws {
        try await Self.withServer(maxBodyBytes: 4096) { server in
            let token = try await server.token(for: "alice")
            let head = "POST /v1/registers HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\n"
            // 1 GB announced, not a byte of it sent: the answer comes without waiting for it.
            let refused = try await server.raw(head + "Content-Length: 1000000000\r\n\r\n", hangUp: false)
            #expect(refused.hasPrefix("HTTP/1.1 413"), "\(refused)")
            #expect(refused.hasSuffix(#"{"error":"the body is larger than 4096 bytes: 1000000000 announced"}"#), "\(refused)")
            // No length announced: the body is read up to the limit.
            let chunked = try await server.raw(
                head + "Transfer-Encoding: chunked\r\n\r\n1388\r\n" + String(repeating: " ", count: 5000) + "\r\n0\r\n\r\n", hangUp: false)
            #expect(chunked.hasPrefix("HTTP/1.1 413"), "\(chunked)")
            #expect(chunked.hasSuffix(#"{"error":"the body is larger than 4096 bytes"}"#), "\(chunked)")
            // 100 bytes announced, 10 sent, and the client is gone.
            _ = try await server.raw(head + "Content-Length: 100\r\n\r\n{\"format\":", hangUp: true)
            var metrics = ""
            try await Deadline.wait(seconds: 30, "the hang-up to be counted") {
                metrics = try await server.request(.GET, "/metrics").body
                return metrics.contains(#"status="499""#)
            }
            #expect(metrics.contains(#"timeline_sync_requests_total{route="/v1/registers",method="POST",status="499"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"timeline_sync_requests_total{route="/v1/registers",method="POST",status="413"} 2"#), "\(metrics)")
            #expect(!metrics.contains(#"status="500""#), "\(metrics)")
            // Nothing was stored.
            #expect(
                try await server.request(.GET, "/v1/registers", token: token).body
                    == #"{"format":"timeline-sync","version":2,"device":"server","cursor":0,"records":[]}"#)
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
            try await Deadline.wait(seconds: 60, "the long-poll to wait") { await server.server.waiters.count > 0 }
            _ = try await server.request(
                .POST, "/v1/registers", token: token, body: ServerHarness.document([ServerHarness.write("p5", seq: 1, millis: 1_000)]))
            let answer = try await woken
            #expect(try ServerHarness.heads(answer.body) == ["me/home/phone": "p5#1"])
            #expect(try SyncWireCoding.decode(Data(answer.body.utf8)).cursor == 1)
            // A cursor already passed answers at once.
            #expect(try await server.request(.GET, "/v1/registers?since=0&wait=20", token: token).status == 200)
        }
    }

    @Test(
        "a long-poll re-armed with the cursor it was answered with waits without asking the database for the cursor, and is answered with the write that wakes it"
    )
    func longPollKeepsTheCursor() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = ObservedStorage(base: try SQLiteRegisterStorage(path: directory.appendingPathComponent("server.sqlite").path))
        try await Self.withServer(storage) { server in
            let token = try await server.token(for: "alice")
            _ = try await server.request(
                .POST, "/v1/registers", token: token, body: ServerHarness.document([ServerHarness.write("p1", seq: 1, millis: 1_000)]))
            // The first long-poll asks once; the cursor it is answered with is kept.
            #expect(try await server.request(.GET, "/v1/registers?since=0&wait=20", token: token).status == 200)
            #expect(storage.cursorReads.value == 1)
            async let woken = server.request(.GET, "/v1/registers?since=1&wait=20", token: token)
            try await Deadline.wait(seconds: 60, "the long-poll to wait") { await server.server.waiters.count > 0 }
            #expect(storage.cursorReads.value == 1)
            let reads = storage.registerReads.value
            _ = try await server.request(
                .POST, "/v1/registers", token: token, body: ServerHarness.document([ServerHarness.write("p2", seq: 2, millis: 2_000)]))
            let answer = try await woken
            #expect(try ServerHarness.heads(answer.body) == ["me/home/phone": "p2#2"])
            #expect(try SyncWireCoding.decode(Data(answer.body.utf8)).cursor == 2)
            // The write's own records answered it: the database was not read.
            #expect(storage.registerReads.value == reads)
            // A stale cursor is answered at once, from the kept one.
            #expect(
                try ServerHarness.heads(try await server.request(.GET, "/v1/registers?since=1&wait=20", token: token).body) == [
                    "me/home/phone": "p2#2"
                ])
            let quiet = try await server.request(.GET, "/v1/registers?since=2&wait=0.2", token: token)
            #expect(try SyncWireCoding.decode(Data(quiet.body.utf8)).records.isEmpty)
            #expect(storage.cursorReads.value == 1)
            // A write that stored only some of its heads wakes with nothing to answer from:
            // the long-poll reads what was stored.
            async let partly = server.request(.GET, "/v1/registers?since=2&wait=20", token: token)
            try await Deadline.wait(seconds: 60, "the long-poll to wait") { await server.server.waiters.count > 0 }
            let before = storage.registerReads.value
            _ = try await server.request(
                .POST, "/v1/registers", token: token,
                body: ServerHarness.document([
                    ServerHarness.write("p1", seq: 1, millis: 1_000), ServerHarness.write("p7", seq: 1, millis: 3_000, device: "laptop"),
                ]))
            let partial = try await partly
            #expect(try ServerHarness.heads(partial.body) == ["me/home/laptop": "p7#1"])
            #expect(try SyncWireCoding.decode(Data(partial.body.utf8)).cursor == 3)
            #expect(storage.registerReads.value == before + 1)
        }
    }

    /// What a storage was asked to announce.
    actor Announcements {
        private(set) var made: [(changes: [ChangeAnnouncement], waiting: Int)] = []
        func record(_ changes: [ChangeAnnouncement], waiting: Int) { made.append((changes, waiting)) }
    }

    /// The server a storage serves, set once it has started.
    actor ServerSlot {
        private(set) var server: SyncServer?
        var waiters: ChangeWaiters? { server?.waiters }
        func set(_ server: SyncServer) { self.server = server }
    }

    @Test("a write that changed something is announced to other instances after its own long-polls are woken; one that changed nothing is not")
    func writesAreAnnounced() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A storage that other instances share, as far as the server can tell.
        let (events, heard) = AsyncStream<RemoteEvent>.makeStream()
        defer { heard.finish() }
        var storage = ObservedStorage(base: try SQLiteRegisterStorage(path: directory.appendingPathComponent("server.sqlite").path))
        storage.remoteEvents = events
        let token = ServerTokens.make()
        _ = try await storage.addToken(hash: ServerTokens.hash(token), user: "alice", at: Date())
        try await Self.withServer(storage) { server in
            await storage.server.set(server.server)
            async let woken = server.request(.GET, "/v1/registers?since=0&wait=20", token: token)
            try await Deadline.wait(seconds: 60, "the long-poll to wait") { await server.server.waiters.count > 0 }
            let write = ServerHarness.document([ServerHarness.write("p1", seq: 1, millis: 1_000)])
            #expect(try await server.request(.POST, "/v1/registers", token: token, body: write).body == #"{"changed":1,"cursor":1}"#)
            #expect(try ServerHarness.heads(try await woken.body) == ["me/home/phone": "p1#1"])
            #expect(try await server.request(.POST, "/v1/registers", token: token, body: write).body == #"{"changed":0,"cursor":1}"#)
        }
        // The server has stopped, and sent what was queued before it did: one announcement, of
        // the write that changed something, sent once its long-poll had been woken.
        let user = try #require(try await storage.user(forTokenHash: ServerTokens.hash(token)))
        let made = await storage.announcements.made
        #expect(made.map(\.changes) == [[ChangeAnnouncement(user: user.id, cursor: 1)]])
        #expect(made.map(\.waiting) == [0])
    }

    @Test("a long-poll woken by a write after a change it has not heard of reads both from the database")
    func wakeAfterAnUnheardChange() async throws {
        try await Self.withServer { server in
            let token = try await server.token(for: "alice")
            _ = try await server.request(
                .POST, "/v1/registers", token: token, body: ServerHarness.document([ServerHarness.write("p1", seq: 1, millis: 1_000)]))
            #expect(try await server.request(.GET, "/v1/registers?since=0&wait=20", token: token).status == 200)
            async let woken = server.request(.GET, "/v1/registers?since=1&wait=20", token: token)
            try await Deadline.wait(seconds: 60, "the long-poll to wait") { await server.server.waiters.count > 0 }
            // Counter 2 comes from elsewhere (as another instance's write whose notification is
            // late); counter 3 is a write to this instance, whose wake carries only its own head.
            let user = try #require(try await server.server.storage.user(forTokenHash: ServerTokens.hash(token)))
            _ = try await server.server.storage.merge(
                [try StoredHead(ServerHarness.write("p2", seq: 1, millis: 2_000, device: "tablet"))], user: user)
            _ = try await server.request(
                .POST, "/v1/registers", token: token, body: ServerHarness.document([ServerHarness.write("p3", seq: 2, millis: 3_000)]))
            let answer = try await woken
            #expect(try ServerHarness.heads(answer.body) == ["me/home/phone": "p3#2", "me/home/tablet": "p2#1"])
            #expect(try SyncWireCoding.decode(Data(answer.body.utf8)).cursor == 3)
            // The largest cursor there is waits too, and a write's wake answers it with nothing newer.
            async let largest = server.request(.GET, "/v1/registers?since=\(Int64.max)&wait=20", token: token)
            try await Deadline.wait(seconds: 60, "the long-poll to wait") { await server.server.waiters.count > 0 }
            _ = try await server.request(
                .POST, "/v1/registers", token: token, body: ServerHarness.document([ServerHarness.write("p4", seq: 3, millis: 4_000)]))
            let nothing = try await largest
            #expect(nothing.body == #"{"format":"timeline-sync","version":2,"device":"server","cursor":4,"records":[]}"#)
        }
    }

    @Test("a graceful shutdown answers the long-polls waiting")
    func shutdownAnswersLongPolls() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ServerHarness.start(
            try SQLiteRegisterStorage(path: directory.appendingPathComponent("s.sqlite").path), maxWait: 60)
        let token = try await server.token(for: "alice")
        async let polled = server.request(.GET, "/v1/registers?since=0&wait=60", token: token)
        try await Deadline.wait(seconds: 60, "the long-poll to wait") { await server.server.waiters.count > 0 }
        try await server.stop()
        #expect(try await polled.status == 200)
    }

    @Test("health, metrics, and a revoked token, which passes until its cache entry's second is over and never after")
    func healthMetricsRevocation() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try SQLiteRegisterStorage(path: directory.appendingPathComponent("server.sqlite").path)
        let clock = ManualNanoseconds()
        let server = try await ServerHarness.start(storage, tokens: TokenCache(now: clock.read))
        do {
            #expect(try await server.request(.GET, "/health").body == #"{"status":"ok"}"#)
            let token = try await server.token(for: "alice")
            _ = try await server.request(
                .POST, "/v1/registers", token: token, body: ServerHarness.document([ServerHarness.write("p5", seq: 1, millis: 1_000)]))
            // The same write again, and an older one of that device beside a newer one of another.
            _ = try await server.request(
                .POST, "/v1/registers", token: token, body: ServerHarness.document([ServerHarness.write("p5", seq: 1, millis: 1_000)]))
            _ = try await server.request(
                .POST, "/v1/registers", token: token,
                body: ServerHarness.document([
                    ServerHarness.write("p4", seq: 1, millis: 900), ServerHarness.write("p6", seq: 1, millis: 1_100, device: "laptop"),
                ]))
            let metrics = try await server.request(.GET, "/metrics")
            #expect(metrics.body.contains(#"timeline_sync_requests_total{route="/v1/registers",method="POST",status="200"} 3"#))
            #expect(metrics.body.contains("timeline_sync_rows_changed_total 2\n"))
            #expect(metrics.body.contains("timeline_sync_writes_not_newer_total 2\n"))
            // Revoked by another process (`engine serve token revoke`): the server hears nothing.
            let tokens = try await server.server.storage.tokens()
            #expect(try await server.server.storage.revokeToken(id: tokens[0].id, at: Date()))
            #expect(try await server.server.storage.revokeToken(id: tokens[0].id, at: Date()) == false)
            clock.advance(by: 999_999_999)
            #expect(try await server.request(.GET, "/v1/registers", token: token).status == 200)
            clock.advance(by: 1)
            #expect(try await server.request(.GET, "/v1/registers", token: token).status == 401)
            #expect(server.server.tokens.count == 0)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test("a long-poll open when its token is revoked receives no write made after the revocation's second: it is refused")
    func revokedLongPoll() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try SQLiteRegisterStorage(path: directory.appendingPathComponent("server.sqlite").path)
        let clock = ManualNanoseconds()
        let server = try await ServerHarness.start(storage, tokens: TokenCache(now: clock.read))
        do {
            let phone = try await server.token(for: "alice")
            let laptop = try await server.token(for: "alice")
            let first = ServerHarness.document([ServerHarness.write("p1", seq: 1, millis: 1_000, device: "laptop")])
            #expect(try await server.request(.POST, "/v1/registers", token: laptop, body: first).status == 200)
            async let polled = server.request(.GET, "/v1/registers?since=1&wait=20", token: phone)
            try await Deadline.wait(seconds: 20, "the long-poll to wait") { await server.server.waiters.count > 0 }
            // Revoked by another process (`engine serve token revoke`): the server hears nothing.
            let revokedId = try #require(try await server.server.storage.tokens().first?.id)
            #expect(try await server.server.storage.revokeToken(id: revokedId, at: Date()))
            clock.advance(by: 1_000_000_000)
            let second = ServerHarness.document([ServerHarness.write("p2", seq: 2, millis: 2_000, device: "laptop")])
            #expect(try await server.request(.POST, "/v1/registers", token: laptop, body: second).status == 200)
            let answer = try await polled
            #expect(answer.status == 401)
            #expect(answer.body == #"{"error":"unknown or revoked token"}"#)
            #expect(!answer.body.contains("p2"))
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test("a token's user is read once a second, whatever the requests; an unknown token is read at every request")
    func tokenReadsAreCached() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = ObservedStorage(base: try SQLiteRegisterStorage(path: directory.appendingPathComponent("server.sqlite").path))
        let clock = ManualNanoseconds()
        let server = try await ServerHarness.start(storage, tokens: TokenCache(now: clock.read))
        do {
            let alice = try await server.token(for: "alice")
            let bob = try await server.token(for: "bob")
            for number in 1...10 {
                let body = ServerHarness.document([ServerHarness.write("p\(number)", seq: UInt64(number), millis: UInt64(number) * 1_000)])
                #expect(try await server.request(.POST, "/v1/registers", token: alice, body: body).status == 200)
                #expect(try await server.request(.GET, "/v1/registers", token: bob).status == 200)
            }
            #expect(storage.tokenReads.value == 2)
            clock.advance(by: 1_000_000_000)
            #expect(try await server.request(.GET, "/v1/registers", token: alice).status == 200)
            #expect(storage.tokenReads.value == 3)
            for _ in 1...3 { #expect(try await server.request(.GET, "/v1/registers", token: "tes_unknown").status == 401) }
            #expect(storage.tokenReads.value == 6)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }
}
#endif
