import Foundation
import LastWriterWins
import NIOHTTP1
import SyncModel
import SyncServer
import Testing

/// The sync server over PostgreSQL. They need a server: `.ci/run` starts one with
/// `.ci/postgres.sh start` and sets ENGINE_TEST_POSTGRES_URL; without it they are skipped.
/// The PostgreSQL server the tests use.
let postgresTestURL = ProcessInfo.processInfo.environment["ENGINE_TEST_POSTGRES_URL"]

@Suite("Sync server on PostgreSQL", .enabled(if: postgresTestURL != nil,
                                             "set ENGINE_TEST_POSTGRES_URL (export ENGINE_TEST_POSTGRES_URL=$(.ci/postgres.sh start)) to run them"))
struct PostgresServerTests {
    static func storage() throws -> PostgresRegisterStorage {
        try PostgresRegisterStorage(url: postgresTestURL ?? "", logger: ServerHarness.logger)
    }

    /// A user no other test run uses, so that runs share the database safely.
    static func user(_ name: String) -> String { "\(name)-\(UUID().uuidString.prefix(8))" }

    @Test("writes merge in the database; users are isolated; bad requests store nothing")
    func basics() async throws {
        let server = try await ServerHarness.start(try Self.storage())
        do {
            let alice = try await server.token(for: Self.user("alice")), bob = try await server.token(for: Self.user("bob"))
            let newer = ServerHarness.write("p9", millis: 2_000, device: "laptop"), older = ServerHarness.write("p1", millis: 1_000)
            #expect(try await server.request(.POST, "/v1/registers", token: alice, body: ServerHarness.document([newer], device: "laptop")).body
                == #"{"changed":2,"cursor":1}"#)
            #expect(try await server.request(.POST, "/v1/registers", token: alice, body: ServerHarness.document([older])).body
                == #"{"changed":1,"cursor":2}"#)
            #expect(try ServerHarness.winners(try await server.request(.GET, "/v1/registers", token: alice).body) == ["me/home": "p9"])
            #expect(try await server.request(.GET, "/v1/registers", token: bob).body
                == #"{"format":"timeline-sync","version":1,"device":"server","cursor":0,"records":[]}"#)
            #expect(try await server.request(.POST, "/v1/registers", token: bob, body: "{").status == 400)
            #expect(try await server.request(.GET, "/health").body == #"{"status":"ok"}"#)
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test("two server instances on one database: a long-poll on one wakes for a write on the other, and concurrent writers converge")
    func twoInstancesConverge() async throws {
        let first = try await ServerHarness.start(try Self.storage())
        let second = try await ServerHarness.start(try Self.storage())
        do {
            let token = try await first.token(for: Self.user("carol"))
            // A long-poll on the second instance, woken by a write through the first (NOTIFY).
            async let woken = second.request(.GET, "/v1/registers?since=0&wait=20", token: token)
            while await second.server.waiters.count == 0 { try await Task.sleep(for: .milliseconds(10)) }
            _ = try await first.request(.POST, "/v1/registers", token: token, body: ServerHarness.document([ServerHarness.write("p0", millis: 500)]))
            #expect(try ServerHarness.winners(try await woken.body) == ["me/home": "p0"])

            // Four devices write 25 times each, through either instance at random, concurrently,
            // to three registers; the database must keep each register's greatest write.
            var all: [PositionRecord] = []
            for device in 0..<4 {
                for number in 0..<25 {
                    all.append(ServerHarness.write("d\(device)-\(number)", millis: UInt64(1_000 + (number * 37 + device * 11) % 400),
                                                   device: "device\(device)", account: "acct\(number % 3)"))
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for device in 0..<4 {
                    let writes = all.filter { $0.device == "device\(device)" }
                    group.addTask {
                        for (number, write) in writes.enumerated() {
                            let instance = (number + device) % 2 == 0 ? first : second
                            let answer = try await instance.request(.POST, "/v1/registers", token: token,
                                                                    body: ServerHarness.document([write], device: write.device))
                            #expect(answer.status == 200)
                        }
                    }
                }
                try await group.waitForAll()
            }
            var expected = ReplicaState()
            expected.apply(contentsOf: all + [ServerHarness.write("p0", millis: 500)], policy: LastWriterWinsPolicy())
            let wanted = Dictionary(uniqueKeysWithValues: expected.registers.map { ("\($0.key.account)/\($0.key.timeline)", $0.value.snapshot!.postId) })
            #expect(try ServerHarness.winners(try await first.request(.GET, "/v1/registers", token: token).body) == wanted)
            #expect(try ServerHarness.winners(try await second.request(.GET, "/v1/registers", token: token).body) == wanted)
        } catch {
            try? await first.stop()
            try? await second.stop()
            throw error
        }
        try await first.stop()
        try await second.stop()
    }
}
