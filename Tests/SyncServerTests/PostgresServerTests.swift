#if SyncServer
import Foundation
import NIOHTTP1
import TimelineEngineSyncModel
import TimelineEngineSyncServer
import Testing
import TimelineEngineTestSupport

/// The sync server over PostgreSQL. They need a server: `.ci/run` starts one with
/// `.ci/postgres.sh start` and sets ENGINE_TEST_POSTGRES_URL; without it they are skipped.
/// The PostgreSQL server the tests use.
let postgresTestURL = ProcessInfo.processInfo.environment["ENGINE_TEST_POSTGRES_URL"]

@Suite(
    "Sync server on PostgreSQL", .timeLimit(.minutes(10)),
    .enabled(if: postgresTestURL != nil, "set ENGINE_TEST_POSTGRES_URL (export ENGINE_TEST_POSTGRES_URL=$(.ci/postgres.sh start)) to run them"))
struct PostgresServerTests {
    static func storage() throws -> PostgresRegisterStorage {
        try PostgresRegisterStorage(url: postgresTestURL ?? "", logger: ServerHarness.logger)
    }

    /// Two server instances on one database, both stopped after `body`, whatever it throws. A
    /// long-poll may wait up to `maxWait` seconds on either: beyond the client's 30 s, a
    /// long-poll that no notification wakes fails the test.
    static func withTwoInstances(
        secondTokens: TokenCache = TokenCache(), maxWait: Double = 5,
        _ body: (ServerHarness, ServerHarness) async throws -> Void
    ) async throws {
        let first = try await ServerHarness.start(try storage(), maxWait: maxWait)
        let second: ServerHarness
        do {
            second = try await ServerHarness.start(try storage(), maxWait: maxWait, tokens: secondTokens)
        } catch {
            try? await first.stop()
            throw error
        }
        do {
            // Each listens for the other's notifications before the test begins: one sent before
            // would not be heard.
            try await Deadline.wait(seconds: 60, "both instances listening") {
                let firstListens = await first.server.waiters.hearsEveryChangeNow
                let secondListens = await second.server.waiters.hearsEveryChangeNow
                return firstListens && secondListens
            }
            try await body(first, second)
        } catch {
            try? await first.stop()
            try? await second.stop()
            throw error
        }
        try await first.stop()
        try await second.stop()
    }

    /// A user no other test run uses, so that runs share the database safely.
    static func user(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(8))" }

    @Test(
        "heads merge in the database, one at a time or in a batch, which keeps each device's latest; users are isolated; bad requests store nothing"
    )
    func basics() async throws {
        let server = try await ServerHarness.start(try Self.storage())
        do {
            let alice = try await server.token(for: Self.user("alice"))
            let bob = try await server.token(for: Self.user("bob"))
            let laptop = ServerHarness.write("p9", seq: 2, millis: 2_000, device: "laptop")
            let phone = ServerHarness.write("p1", seq: 1, millis: 1_000)
            #expect(
                try await server.request(.POST, "/v1/registers", token: alice, body: ServerHarness.document([laptop], device: "laptop")).body
                    == #"{"changed":1,"cursor":1}"#)
            #expect(
                try await server.request(.POST, "/v1/registers", token: alice, body: ServerHarness.document([phone])).body
                    == #"{"changed":1,"cursor":2}"#)
            #expect(
                try await server.request(.POST, "/v1/registers", token: alice, body: ServerHarness.document([phone])).body
                    == #"{"changed":0,"cursor":2}"#)
            // A single head earlier than the stored one, with a later clock, changes nothing.
            let late = ServerHarness.write("p0", seq: 1, millis: 9_000, device: "laptop")
            #expect(
                try await server.request(.POST, "/v1/registers", token: alice, body: ServerHarness.document([late], device: "laptop")).body
                    == #"{"changed":0,"cursor":2}"#)
            let batch = [
                ServerHarness.write("p3", seq: 3, millis: 3_000), ServerHarness.write("p2", seq: 2, millis: 9_000),
                ServerHarness.write("l1", seq: 1, millis: 9_500, device: "laptop"),
            ]
            #expect(
                try await server.request(.POST, "/v1/registers", token: alice, body: ServerHarness.document(batch)).body
                    == #"{"changed":1,"cursor":3}"#)
            #expect(
                try ServerHarness.heads(try await server.request(.GET, "/v1/registers", token: alice).body)
                    == ["me/home/laptop": "p9#2", "me/home/phone": "p3#3"])
            #expect(
                try ServerHarness.heads(try await server.request(.GET, "/v1/registers?since=2&wait=0", token: alice).body)
                    == ["me/home/phone": "p3#3"])
            #expect(
                try await server.request(.GET, "/v1/registers", token: bob).body
                    == #"{"format":"timeline-sync","version":2,"device":"server","cursor":0,"records":[]}"#)
            #expect(try await server.request(.POST, "/v1/registers", token: bob, body: "{").status == 400)
            #expect(try await server.request(.GET, "/health").body == #"{"status":"ok"}"#)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test("writes to different registers that share one stamp are each stored and each read back")
    func sharedStamp() async throws {
        let server = try await ServerHarness.start(try Self.storage())
        do {
            let token = try await server.token(for: Self.user("dave"))
            #expect(
                try await server.request(.POST, "/v1/registers", token: token, body: ServerHarness.document(SyncServerTests.sharedStamp)).body
                    == #"{"changed":6,"cursor":1}"#)
            #expect(
                try ServerHarness.heads(try await server.request(.GET, "/v1/registers", token: token).body)
                    == Dictionary(uniqueKeysWithValues: (1...6).map { ("a\($0)/home/phone", "p\($0)#\($0)") }))
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test("the storage keeps each device's latest of a batch that names a device twice, whatever the order")
    func storageBatchRepeatsADevice() async throws {
        let storage = try Self.storage()
        let server = try await ServerHarness.start(storage)
        do {
            let hash = Array(UUID().uuidString.utf8.prefix(32))
            _ = try await storage.addToken(hash: hash, user: Self.user("carol"), at: Date())
            let user = try #require(try await storage.user(forTokenHash: hash))
            let newer = ServerHarness.write("p3", seq: 3, millis: 3_000)
            let older = ServerHarness.write("p2", seq: 2, millis: 9_000)
            #expect(try await storage.merge([try StoredHead(newer), try StoredHead(older)], user: user).changed == 1)
            let stored = try await storage.read(user: user, since: nil).records
            #expect(stored.count == 1)
            #expect(stored.first?.contains(#""postId":"p3""#) == true)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test(
        "two server instances on one database: a long-poll on one wakes for a write on the other, and concurrent writers keep every device's latest"
    )
    func twoInstancesConverge() async throws {
        try await Self.withTwoInstances(maxWait: 600) { first, second in
            let token = try await first.token(for: Self.user("carol"))
            // A long-poll on the second instance, woken by a write through the first (NOTIFY).
            async let woken = second.request(.GET, "/v1/registers?since=0&wait=600", token: token)
            try await Deadline.wait(seconds: 60, "the long-poll to wait") { await second.server.waiters.count > 0 }
            _ = try await first.request(
                .POST, "/v1/registers", token: token,
                body: ServerHarness.document([ServerHarness.write("p0", seq: 1, millis: 500, device: "zero")], device: "zero"))
            #expect(try ServerHarness.heads(try await woken.body) == ["me/home/zero": "p0#1"])

            // Four devices write batches of up to 3, out of order, through either instance at
            // random, concurrently, to three registers: the database must keep, per register and
            // device, the write with the highest sequence number (computed here, independently).
            var all: [PositionRecord] = []
            for device in 0..<4 {
                for number in 1...25 {
                    all.append(
                        ServerHarness.write(
                            "d\(device)-\(number)", seq: UInt64((number * 7 + device) % 25 + 1),
                            millis: UInt64(1_000 + (number * 37 + device * 11) % 400), device: "device\(device)",
                            account: "acct\(number % 3)"))
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for device in 0..<4 {
                    let writes = all.filter { $0.device == "device\(device)" }
                    group.addTask {
                        var start = 0
                        var turn = device
                        while start < writes.count {
                            let batch = Array(writes[start..<min(writes.count, start + 1 + turn % 3)])
                            start += batch.count
                            turn += 1
                            let instance = turn % 2 == 0 ? first : second
                            let answer = try await instance.request(
                                .POST, "/v1/registers", token: token,
                                body: ServerHarness.document(batch, device: batch[0].device))
                            #expect(answer.status == 200)
                        }
                    }
                }
                try await group.waitForAll()
            }
            var wanted = ["me/home/zero": "p0#1"]
            var best: [String: PositionRecord] = [:]
            for write in all {
                let name = "\(write.key.account)/home/\(write.device)"
                if best[name].map({ $0.sequence < write.sequence }) ?? true { best[name] = write }
            }
            for (name, write) in best { wanted[name] = "\(write.snapshot!.postId)#\(write.sequence)" }
            #expect(try ServerHarness.heads(try await first.request(.GET, "/v1/registers", token: token).body) == wanted)
            #expect(try ServerHarness.heads(try await second.request(.GET, "/v1/registers", token: token).body) == wanted)
        }
    }

    @Test(
        "concurrent writes of many users through one instance, announced in groups, wake each user's long-poll on another with that user's write")
    func announcementsInGroups() async throws {
        try await Self.withTwoInstances(maxWait: 600) { first, second in
            var tokens: [String] = []
            // Six: the tests' HTTP client opens at most 8 connections to a host.
            for index in 0..<6 { tokens.append(try await first.token(for: Self.user("reader\(index)"))) }
            for token in tokens { _ = try await second.request(.GET, "/v1/registers?wait=0", token: token) }
            try await withThrowingTaskGroup(of: (Int, [String: String]).self) { polls in
                for (index, token) in tokens.enumerated() {
                    polls.addTask {
                        (index, try ServerHarness.heads(try await second.request(.GET, "/v1/registers?since=0&wait=600", token: token).body))
                    }
                }
                try await Deadline.wait(seconds: 60, "every long-poll to wait") { await second.server.waiters.count == tokens.count }
                // Each user's write, all at once, so that their announcements queue behind one another.
                try await withThrowingTaskGroup(of: Void.self) { writes in
                    for (index, token) in tokens.enumerated() {
                        writes.addTask {
                            let write = ServerHarness.write("p\(index)", seq: 1, millis: 1_000)
                            let answer = try await first.request(.POST, "/v1/registers", token: token, body: ServerHarness.document([write]))
                            #expect(answer.body == #"{"changed":1,"cursor":1}"#)
                        }
                    }
                    try await writes.waitForAll()
                }
                for try await (index, heads) in polls { #expect(heads == ["me/home/phone": "p\(index)#1"], "reader \(index)") }
            }
        }
    }

    @Test("a token revoked through one instance is refused by another at once: the revocation's notification empties every instance's cache")
    func revocationReachesEveryInstance() async throws {
        // The second instance would keep its tokens an hour: only the notification can end it.
        try await Self.withTwoInstances(secondTokens: TokenCache(lifetime: .seconds(3600))) { first, second in
            let token = try await first.token(for: Self.user("erin"))
            let other = try await first.token(for: Self.user("frank"))
            #expect(try await second.request(.GET, "/v1/registers", token: token).status == 200)
            #expect(try await second.request(.GET, "/v1/registers", token: other).status == 200)
            #expect(second.server.tokens.count == 2)
            let id = try #require(try await first.server.storage.tokens().last { $0.user.hasPrefix("erin-") }?.id)
            #expect(try await first.server.storage.revokeToken(id: id, at: Date()))
            try await Deadline.wait(seconds: 60, "the revocation to reach the second instance") { second.server.tokens.count == 1 }
            let refused = try await second.request(.GET, "/v1/registers", token: token)
            #expect(refused.status == 401)
            #expect(refused.body == #"{"error":"unknown or revoked token"}"#)
            #expect(try await second.request(.GET, "/v1/registers", token: other).status == 200)
        }
    }

    @Test("a long-poll open on one instance when its token is revoked through another is refused the next write, not sent it")
    func revocationReachesOpenLongPolls() async throws {
        try await Self.withTwoInstances(secondTokens: TokenCache(lifetime: .seconds(3600)), maxWait: 600) { first, second in
            let user = Self.user("gina")
            let phone = try await first.token(for: user)
            let laptop = try await first.token(for: user)
            let write = ServerHarness.document([ServerHarness.write("p1", seq: 1, millis: 1_000, device: "laptop")])
            // Written through the instance that long-polls: written through the other, its
            // notification could arrive after the long-poll began and wake it with no change.
            #expect(try await second.request(.POST, "/v1/registers", token: laptop, body: write).status == 200)
            async let polled = second.request(.GET, "/v1/registers?since=1&wait=600", token: phone)
            try await Deadline.wait(seconds: 60, "the long-poll to wait") { await second.server.waiters.count > 0 }
            let id = try #require(try await first.server.storage.tokens().first { $0.user == user }?.id)
            #expect(try await first.server.storage.revokeToken(id: id, at: Date()))
            // The second instance keeps the laptop's token, and forgets the phone's.
            try await Deadline.wait(seconds: 60, "the revocation to reach the second instance") { second.server.tokens.count == 1 }
            let next = ServerHarness.document([ServerHarness.write("p2", seq: 2, millis: 2_000, device: "laptop")])
            #expect(try await first.request(.POST, "/v1/registers", token: laptop, body: next).status == 200)
            let answer = try await polled
            #expect(answer.status == 401)
            #expect(answer.body == #"{"error":"unknown or revoked token"}"#)
        }
    }
}
#endif
