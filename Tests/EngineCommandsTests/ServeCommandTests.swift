#if SyncServer
import Foundation
import Testing
import TimelineEngineTestSupport

/// `engine serve` and its tokens, run as a user runs them, with two stores syncing through it.
@Suite("engine serve", .timeLimit(.minutes(10)))
struct ServeCommandTests {
    @Test("token create prints the token alone on the last line; list and revoke; a second revoke fails")
    func tokens() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("server.sqlite").path
        let created = try await EngineProcess.run(["serve", "token", "create", "--store", store, "--user", "alice"])
        #expect(created.status == 0)
        let lines = created.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.first == "token 1 for user alice; the server keeps only its hash, so it is shown this once:")
        #expect(lines.last?.wholeMatch(of: /tes_[0-9a-f]{64}/) != nil)
        let listed = try await EngineProcess.run(["serve", "token", "list", "--store", store])
        #expect(listed.stdout.hasPrefix("1\talice\tcreated "))
        #expect(listed.stdout.hasSuffix("\tactive\n"))
        #expect(try await EngineProcess.run(["serve", "token", "revoke", "--store", store, "--id", "1"]).stdout == "token 1 revoked\n")
        let again = try await EngineProcess.run(["serve", "token", "revoke", "--store", store, "--id", "1"])
        #expect(again.status == 1)
        #expect(again.stderr == "error: no token 1 to revoke (unknown, or revoked already)\n")
    }

    @Test("user export writes the user's data as JSON, to a file with -o; user erase removes it and says what; an unknown user is an error")
    func userData() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("server.sqlite").path
        #expect(try await EngineProcess.run(["serve", "token", "create", "--store", store, "--user", "alice"]).status == 0)
        let exported = try await EngineProcess.run(["serve", "user", "export", "--store", store, "--user", "alice"])
        #expect(exported.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any])
        #expect(document["format"] as? String == "timeline-sync-export")
        #expect(document["user"] as? String == "alice")
        #expect((document["tokens"] as? [[String: Any]])?.first?["id"] as? Int == 1)
        #expect((document["registers"] as? [Any])?.isEmpty == true)
        let file = directory.appendingPathComponent("alice.json").path
        let toFile = try await EngineProcess.run(["serve", "user", "export", "--store", store, "--user", "alice", "-o", file])
        #expect(toFile.stdout == "exported 0 registers of user alice to \(file)\n")
        #expect(FileManager.default.fileExists(atPath: file))
        let erased = try await EngineProcess.run(["serve", "user", "erase", "--store", store, "--user", "alice"])
        #expect(erased.status == 0)
        #expect(
            erased.stdout
                == "erased user alice: 0 registers, 0 heads, 1 token; from now on the server refuses writes in the clear made before now, and sealed writes no later than the last it holds of each of the user's 0 devices\n"
        )
        let after = try await EngineProcess.run(["serve", "user", "export", "--store", store, "--user", "alice"])
        let emptied = try #require(try JSONSerialization.jsonObject(with: Data(after.stdout.utf8)) as? [String: Any])
        #expect((emptied["tokens"] as? [Any])?.isEmpty == true)
        #expect(emptied["erasedAt"] is String)
        let unknown = try await EngineProcess.run(["serve", "user", "erase", "--store", store, "--user", "bob"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "error: no user \"bob\" on this server\n")
    }

    @Test("token list shows look-alike user names apart: a decomposed é, a zero-width space")
    func lookAlikeUsers() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("server.sqlite").path
        for user in ["café", "cafe\u{301}", "alice", "alice\u{200B}"] {
            #expect(try await EngineProcess.run(["serve", "token", "create", "--store", store, "--user", user]).status == 0)
        }
        let listed = try await EngineProcess.run(["serve", "token", "list", "--store", store])
        let users = listed.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[1]) }
        #expect(users == ["café", "cafe\\u{301}", "alice", "alice\\u{200b}"])
    }

    @Test("a user name holding an escape sequence, a newline or a right-to-left override is refused before anything is stored")
    func hostileUser() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("server.sqlite").path
        for user in ["al\u{1b}[2Jice", "alice\ntoken 9 for user root", "ali\u{202e}ce", ""] {
            let created = try await EngineProcess.run(["serve", "token", "create", "--store", store, "--user", user])
            #expect(created.status == 2)
            #expect(
                created.stderr.hasPrefix("Error: --user must be 1 to 200 characters, none of them a control character\n"), "\(created.stderr)")
            #expect(created.stdout.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test(
        "token commands on PostgreSQL print nothing on standard error: the pool runs before the first statement",
        .enabled(if: ProcessInfo.processInfo.environment["ENGINE_TEST_POSTGRES_URL"] != nil, "set ENGINE_TEST_POSTGRES_URL to run it"))
    func postgresTokensQuietly() async throws {
        let database = try #require(ProcessInfo.processInfo.environment["ENGINE_TEST_POSTGRES_URL"])
        // The warning ("Trying to lease connection from `PostgresClient`, but `PostgresClient.run()`
        // hasn't been called yet") came from a race: several rounds give it its chances.
        for round in 1...5 {
            let created = try await EngineProcess.run(["serve", "token", "create", "--database", database, "--user", "quiet-\(round)"])
            #expect(created.status == 0)
            #expect(created.stderr == "")
            let listed = try await EngineProcess.run(["serve", "token", "list", "--database", database])
            #expect(listed.status == 0)
            #expect(listed.stderr == "")
        }
    }

    @Test("usage errors: no storage, both, a bad address, and a non-loopback address without --allow-insecure-http")
    func usage() async throws {
        let cases: [([String], String)] = [
            (["serve"], "Error: missing --store PATH (or --database postgres://…)"),
            (["serve", "--store", "a", "--database", "postgres://u@h/d"], "Error: give --store or --database, not both"),
            (["serve", "--store", "a", "--listen", "8080"], "Error: --listen must be HOST:PORT with a port from 0 to 65535, found 8080"),
            (["serve", "--store", "a", "--database", "x"], "Error: give --store or --database, not both"),
        ]
        for (arguments, message) in cases {
            let result = try await EngineProcess.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
        }
        let open = try await EngineProcess.run(["serve", "--store", "/nonexistent/x.sqlite", "--listen", "0.0.0.0:8080"])
        #expect(open.status == 2)
        #expect(
            open.stderr == """
                error: 0.0.0.0 is not a loopback address: the server speaks plain HTTP, so it listens elsewhere only behind a proxy that \
                terminates TLS; add --allow-insecure-http to do so

                """)
        let badURL = try await EngineProcess.run(["serve", "--database", "mysql://u@h/d"])
        #expect(badURL.status == 2)
        #expect(badURL.stderr == "error: --database must be postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, found mysql://u@h/d\n")
        for size in ["0", "many", "1001"] {
            let badPool = try await EngineProcess.run(["serve", "--database", "postgres://u@127.0.0.1/d?pool_size=\(size)"])
            #expect(badPool.status == 2)
            #expect(badPool.stderr == "error: pool_size must be a number from 1 to 1000, found \(size)\n")
        }
    }

    @Test("two stores sync through engine serve with the HTTP transport; a bad token is an error, a stopped server offline")
    func twoDevices() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let serverStore = directory.appendingPathComponent("server.sqlite").path
        let token = try #require(
            try await EngineProcess.run(["serve", "token", "create", "--store", serverStore, "--user", "alice"])
                .stdout.split(separator: "\n").last.map(String.init))
        let server = try await RunningServer(["--store", serverStore])
        let config = directory.appendingPathComponent("sync.json")
        try """
        {"SocialFusionTimelineConfiguration": {"PositionPersistence": {"CrossSessionSync": true},
         "Sync": {"Transport": {"Strategy": "HTTP", "URL": "\(server.url)"}}}}
        """.write(to: config, atomically: true, encoding: .utf8)
        let environment = ["ENGINE_SYNC_TOKEN": token]
        func engine(_ arguments: [String], token: String? = nil) async throws -> EngineProcess.Result {
            try await EngineProcess.run(arguments, in: directory, environment: ["ENGINE_SYNC_TOKEN": token ?? environment["ENGINE_SYNC_TOKEN"]!])
        }
        let scope = ["--account", "me", "--timeline-name", "home"]
        #expect(try await engine(["position", "save", "--store", "phone.sqlite", "--post", "42", "--device", "phone"] + scope).status == 0)
        #expect(try await engine(["sync", "run", "--store", "phone.sqlite", "--config", config.path, "--device", "phone"]).status == 0)
        let laptop = try await engine(["sync", "run", "--store", "laptop.sqlite", "--config", config.path, "--device", "laptop"])
        #expect(laptop.stdout == "me / home: now post 42\nsynced laptop with HTTP: heard from phone; 1 moved, 0 sent\n")
        #expect(try await engine(["position", "save", "--store", "laptop.sqlite", "--post", "43", "--device", "laptop"] + scope).status == 0)
        #expect(try await engine(["sync", "run", "--store", "laptop.sqlite", "--config", config.path, "--device", "laptop"]).status == 0)
        #expect(
            try await engine(["sync", "run", "--store", "phone.sqlite", "--config", config.path, "--device", "phone"]).stdout
                == "me / home: now post 43\nsynced phone with HTTP: heard from laptop; 1 moved, 0 sent\n")
        let bad = try await engine(["sync", "run", "--store", "phone.sqlite", "--config", config.path, "--device", "phone"], token: "tes_wrong")
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("HTTP 401: unknown or revoked token"))
        // What stays in the outbox is information, not a second error.
        #expect(bad.stderr.hasSuffix("\nnote: 0 changes kept in the outbox\n"))
        let stopped = try await server.stop()
        #expect(stopped.status == 0)
        #expect(stopped.stderr.hasSuffix("notice [sync] stopped\n"))
        _ = try await engine(["position", "save", "--store", "phone.sqlite", "--post", "44", "--device", "phone"] + scope)
        let offline = try await engine(["sync", "run", "--store", "phone.sqlite", "--config", config.path, "--device", "phone"])
        #expect(offline.status == 3)
        #expect(offline.stderr.hasSuffix("offline: 1 change kept in the outbox\n"))
    }
}
#endif
