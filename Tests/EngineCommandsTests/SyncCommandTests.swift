import Foundation
import Testing
import TimelineEngineTestSupport

/// `engine position` and `engine sync` as the README's demo runs them: stores that share a folder
/// converge, whatever the order of their rounds.
@Suite("engine position and engine sync", .timeLimit(.minutes(10)))
struct SyncCommandTests {
    /// A folder with a shared sync folder and a configuration that names it.
    struct Setup {
        let directory: URL
        var shared: URL { directory.appendingPathComponent("shared") }
        var config: String { directory.appendingPathComponent("sync.json").path }

        /// `policy` is the JSON of `Sync.Policy`.
        init(policy: String = #"{"Strategy": "CausalFurthest", "Direction": "Newer"}"#, crossSessionSync: Bool = true, createShared: Bool = true)
            throws
        {
            directory = try Fixtures.temporaryDirectory()
            if createShared {
                try FileManager.default.createDirectory(at: directory.appendingPathComponent("shared"), withIntermediateDirectories: true)
            }
            let json = """
                {"PositionPersistence": {"CrossSessionSync": \(crossSessionSync)},
                 "Sync": {"Policy": \(policy), "Transport": {"Strategy": "Directory", "Path": "\(directory.appendingPathComponent("shared").path)"}}}
                """
            try json.write(toFile: directory.appendingPathComponent("sync.json").path, atomically: true, encoding: .utf8)
        }

        func store(_ device: String) -> String { directory.appendingPathComponent("\(device).sqlite").path }

        @discardableResult
        func save(_ device: String, post: String, minute: Int, explicit: Bool = false, extra: [String] = []) async throws -> EngineProcess.Result {
            try await EngineProcess.run(
                [
                    "position", "save", "--store", store(device), "--config", config, "--device", device, "--account", "me",
                    "--timeline-name", "home", "--post", post, "--created-at", String(format: "2026-11-24T08:%02d:00Z", minute),
                ]
                    + (explicit ? ["--explicit"] : []) + extra)
        }

        @discardableResult
        func sync(_ device: String) async throws -> EngineProcess.Result {
            try await EngineProcess.run(["sync", "run", "--store", store(device), "--config", config, "--device", device])
        }

        func shown(_ device: String) async throws -> String {
            let result = try await EngineProcess.run([
                "position", "show", "--store", store(device), "--config", config, "--account", "me",
                "--timeline-name", "home", "--format", "json",
            ])
            guard let position = result.stdout.range(of: #""postId": ""#) else { return "none" }
            return String(result.stdout[position.upperBound...].prefix { $0 != "\"" })
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    @Test("engine sync phrase prints a new phrase and its key's id, or the id of a variable's phrase; an unset variable is refused")
    func phrase() async throws {
        let phrase = "q7kmv-x2pwd-hn4sc-9tbez-arf3u-kd8vy-p6wqm-ej2xn"
        let given = try await EngineProcess.run(["sync", "phrase", "--key-id", "READER_PHRASE"], environment: ["READER_PHRASE": phrase])
        let unset = try await EngineProcess.run(["sync", "phrase", "--key-id", "ENGINE_TEST_UNSET_PHRASE"])
        #expect(unset.status == 2 && unset.stderr == "error: ENGINE_TEST_UNSET_PHRASE is not set: set it to the recovery phrase\n")
        let new = try await EngineProcess.run(["sync", "phrase"])
        let lines = new.stdout.split(separator: "\n")
        #expect(new.status == 0 && lines.count == 2 && lines[0].count == 47)
        #if SyncEncryption
        #expect(given.status == 0 && given.stdout == "key id: ca000256\n")
        #expect(lines[1].hasPrefix("key id: ") && lines[1].count == 16)
        #else
        #expect(
            given.status == 2
                && given.stderr
                    == "error: this engine was built without end-to-end sealing: build it with the SyncEncryption trait (swift build --traits SyncEncryption)\n"
        )
        #expect(lines[1].hasPrefix("key id: unknown (this engine was built without end-to-end sealing"))
        #endif
    }

    @Test(
        "engine restore --store takes the register's winner by the merge policy without the recovery phrase, which a restore does not need"
    )
    func restoreWithoutThePhrase() async throws {
        #if SyncEncryption
        let setup = try Setup()
        defer { setup.remove() }
        try """
        {"PositionPersistence": {"CrossSessionSync": true},
         "Sync": {"EncryptionPhraseVariable": "READER_PHRASE", "Transport": {"Strategy": "Directory", "Path": "\(setup.shared.path)"}}}
        """.write(toFile: setup.config, atomically: true, encoding: .utf8)
        let phrase = ["READER_PHRASE": "q7kmv-x2pwd-hn4sc-9tbez-arf3u-kd8vy-p6wqm-ej2xn"]
        func engine(_ arguments: [String]) async throws -> EngineProcess.Result {
            let result = try await EngineProcess.run(arguments + ["--config", setup.config], environment: phrase)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return result
        }
        _ = try await engine(["position", "save", "--store", setup.store("laptop"), "--device", "laptop", "--post", "95"])
        _ = try await engine(["sync", "run", "--store", setup.store("laptop"), "--device", "laptop"])
        _ = try await engine(["sync", "run", "--store", setup.store("phone"), "--device", "phone"])
        _ = try await engine(["position", "save", "--store", setup.store("phone"), "--device", "phone", "--post", "80"])
        _ = try await engine(["sync", "run", "--store", setup.store("phone"), "--device", "phone"])
        _ = try await engine(["sync", "run", "--store", setup.store("laptop"), "--device", "laptop"])
        let timeline = setup.directory.appendingPathComponent("timeline.json").path
        let posts = (0..<30).map { #"{"id": "\#(100 - $0)", "createdAt": "2026-11-24T10:\#(String(format: "%02d", 59 - $0)):00Z"}"# }
        try #"{"posts": [\#(posts.joined(separator: ", "))]}"#.write(toFile: timeline, atomically: true, encoding: .utf8)
        // Without the phrase (a shell where it is not set), the restore starts where it does with it.
        for environment in [phrase, [:]] {
            let restored = try await EngineProcess.run(
                ["restore", "--store", setup.store("laptop"), "--config", setup.config, "--timeline", timeline], environment: environment)
            #expect(restored.status == 0, "\(restored.stderr)")
            #expect(restored.stdout.hasPrefix("start: post 80, synced from phone\npost 80 at index 20,"), "\(restored.stdout)")
        }
        #endif
    }

    @Test("two and three stores converge through a directory, in any order of sync run", arguments: [2, 3])
    func converge(_ count: Int) async throws {
        let devices = ["phone", "laptop", "tablet"].prefix(count)
        for order in [Array(devices), Array(devices.reversed())] {
            let setup = try Setup()
            defer { setup.remove() }
            for (number, device) in devices.enumerated() { try await setup.save(device, post: "p\(number)", minute: 10 * number) }
            // Two passes in this order: the first spreads every write, the second lets the
            // earliest devices hear the latest.
            for _ in 0..<2 {
                for device in order { #expect(try await setup.sync(device).status == 0) }
            }
            // Concurrent writes: the position furthest along (Direction: Newer) wins on every device.
            for device in devices { #expect(try await setup.shown(device) == "p\(count - 1)", "\(order): \(device)") }
        }
    }

    @Test("the README's demo: the laptop reads on after hearing the phone, and its write wins on both; forget travels too")
    func demo() async throws {
        let setup = try Setup(policy: #""CausalFurthest""#)
        defer { setup.remove() }
        #expect(try await setup.save("phone", post: "100", minute: 0).stdout.hasPrefix("saved post 100 for me / home on phone at "))
        #expect(try await setup.sync("phone").stdout == "synced phone with Directory: heard from no other device; 0 moved, 1 sent\n")
        #expect(try await setup.sync("laptop").stdout == "me / home: now post 100\nsynced laptop with Directory: heard from phone; 1 moved, 0 sent\n")
        try await setup.save("laptop", post: "95", minute: 55)
        #expect(try await setup.sync("laptop").stdout == "synced laptop with Directory: heard from phone; 0 moved, 1 sent\n")
        #expect(try await setup.sync("phone").stdout == "me / home: now post 95\nsynced phone with Directory: heard from laptop; 1 moved, 0 sent\n")
        #expect(try await setup.shown("phone") == "95")
        #expect(try await setup.shown("laptop") == "95")
        let text = try await EngineProcess.run([
            "position", "show", "--store", setup.store("phone"), "--config", setup.config, "--account", "me",
            "--timeline-name", "home",
        ])
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix("me / home: post 95, viewportY 0 pt, saved on laptop at ") == true)
        #expect(lines.first?.hasSuffix("; one live head: it saw the others)") == true)
        #expect(lines.dropFirst().first?.hasSuffix(", write 1, live") == true)
        #expect(lines.last?.hasSuffix(", write 1, seen by another device's later write") == true)
        let forget = try await EngineProcess.run([
            "position", "forget", "--store", setup.store("laptop"), "--config", setup.config,
            "--account", "me", "--timeline-name", "home",
        ])
        #expect(forget.status == 0)
        try await setup.sync("laptop")
        #expect(try await setup.sync("phone").stdout.hasPrefix("me / home: forgotten\n"))
        let json = try await EngineProcess.run([
            "position", "show", "--store", setup.store("phone"), "--account", "me", "--timeline-name", "home",
            "--format", "json",
        ])
        #expect(json.stdout.hasPrefix("{\n  \"position\": null,"))
        // A save after the forget (it has seen the tombstone) comes back everywhere.
        try await setup.save("phone", post: "90", minute: 5)
        try await setup.sync("phone")
        try await setup.sync("laptop")
        #expect(try await setup.shown("laptop") == "90")
    }

    @Test(
        "a stale device does not drag the reader back under CausalFurthest or FurthestRead, but does under LastWriterWins; an explicit move back wins"
    )
    func policies() async throws {
        for (policy, expected) in [
            (#"{"Strategy": "CausalFurthest", "Direction": "Newer"}"#, "p9"), (#"{"Strategy": "FurthestRead", "Direction": "Newer"}"#, "p9"),
            (#""LastWriterWins""#, "p1"),
        ] {
            let setup = try Setup(policy: policy)
            defer { setup.remove() }
            // Twenty seconds apart, however long the processes take: within a minute, two
            // concurrent writes are ordered by how far they read, not by their time.
            let start = Date().addingTimeInterval(-120)
            try await setup.save("phone", post: "p9", minute: 50, extra: ["--saved-at", ISO8601DateFormatter().string(from: start)])
            try await setup.sync("phone")
            // The laptop opens at an old position, later, without having synced.
            try await setup.save(
                "laptop", post: "p1", minute: 1, extra: ["--saved-at", ISO8601DateFormatter().string(from: start.addingTimeInterval(20))])
            try await setup.sync("laptop")
            try await setup.sync("phone")
            #expect(try await setup.shown("phone") == expected, "\(policy)")
            #expect(try await setup.shown("laptop") == expected, "\(policy)")
        }
        let setup = try Setup()
        defer { setup.remove() }
        try await setup.save("phone", post: "p9", minute: 50)
        try await setup.sync("phone")
        try await setup.sync("laptop")
        try await setup.save("laptop", post: "p1", minute: 1, explicit: true)
        try await setup.sync("laptop")
        try await setup.sync("phone")
        #expect(try await setup.shown("phone") == "p1")
    }

    @Test("a save soon after opening that moved little is a glance: it loses to concurrent reading under CausalFurthest, not under FurthestRead")
    func glance() async throws {
        for (policy, expected) in [(#""CausalFurthest""#, "p98"), (#""FurthestRead""#, "p97")] {
            let setup = try Setup(policy: policy)
            defer { setup.remove() }
            try await setup.save("phone", post: "p100", minute: 40)
            try await setup.sync("phone")
            try await setup.sync("laptop")
            // The reader reads down on the laptop; the phone, still at p100, is opened and nudged
            // past that place within 8 seconds, and put down.
            try await setup.save("laptop", post: "p98", minute: 38)
            try await setup.save("phone", post: "p97", minute: 37, extra: ["--open-for", "8", "--moved-posts", "3"])
            try await setup.sync("laptop")
            try await setup.sync("phone")
            #expect(try await setup.shown("phone") == expected, "\(policy)")
            let json = try await EngineProcess.run([
                "position", "show", "--store", setup.store("phone"), "--config", setup.config, "--account", "me",
                "--format", "json",
            ])
            #expect(json.stdout.contains(#""visit": {\#n        "seconds": 8.0,\#n        "posts": 3\#n      }"#), "\(json.stdout)")
            // The phone first heard of the laptop at its last round: its own head, concurrent
            // with the laptop's, went out again with the laptop's clock bound.
            #expect(json.stdout.contains(#""clocks": {\#n        "laptop": "#), "\(json.stdout)")
            #expect(json.stdout.contains(#""clocksRevision": 1\#n"#), "\(json.stdout)")
        }
        let setup = try Setup()
        defer { setup.remove() }
        for (arguments, message) in [
            (["--open-for", "8"], "error: --open-for and --moved-posts go together: how long the device was open, and how far the reader moved\n"),
            (["--open-for=-1", "--moved-posts", "0"], "error: --open-for must be a number of seconds, 0 or more\n"),
            (["--open-for", "nan", "--moved-posts", "0"], "error: --open-for must be a number of seconds, 0 or more\n"),
            (["--open-for", "1", "--moved-posts=-2"], "error: --moved-posts must be a number of posts, 0 or more\n"),
        ] {
            let result = try await setup.save("phone", post: "p1", minute: 1, extra: arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr == message, "\(arguments)")
        }
        #expect(!FileManager.default.fileExists(atPath: setup.store("phone")), "a refused save creates no store")
    }

    @Test("a post time that no timestamp could write back (an offset past the year 1) is refused at the save, and nothing is stored")
    func unwritableTime() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let result = try await EngineProcess.run([
            "position", "save", "--store", setup.store("phone"), "--post", "42",
            "--created-at", "0001-01-01T00:00:00+01:00",
        ])
        #expect(result.status == 2)
        #expect(result.stderr == "error: --created-at must be an RFC 3339 timestamp in the years 1 to 9999 (UTC), found 0001-01-01T00:00:00+01:00\n")
        #expect(!FileManager.default.fileExists(atPath: setup.store("phone")))
    }

    @Test("a missing folder is offline: exit 3, nothing created, the outbox kept for the next round")
    func offline() async throws {
        let setup = try Setup(createShared: false)
        defer { setup.remove() }
        try await setup.save("phone", post: "p1", minute: 1)
        let result = try await setup.sync("phone")
        #expect(result.status == 3)
        #expect(
            result.stderr
                == "error: \(setup.shared.path): the sync folder does not exist (a share not mounted?); it is never created\noffline: 1 change kept in the outbox\n"
        )
        #expect(!FileManager.default.fileExists(atPath: setup.shared.path))
        let status = try await EngineProcess.run(["sync", "status", "--store", setup.store("phone")])
        #expect(status.stdout.contains("pending: 1\n"))
        #expect(status.stdout.hasPrefix("device phone: error: \(setup.shared.path): the sync folder does not exist"))
        try FileManager.default.createDirectory(at: setup.shared, withIntermediateDirectories: true)
        #expect(try await setup.sync("phone").status == 0)
        #expect(try await EngineProcess.run(["sync", "status", "--store", setup.store("phone")]).stdout.contains("pending: 0\n"))
    }

    @Test("garbage, truncated and future-version files in the folder are warnings naming them; nothing else changes")
    func badFiles() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        try await setup.save("phone", post: "p1", minute: 1)
        try "garbage".write(to: setup.shared.appendingPathComponent("a.timeline-sync.json"), atomically: true, encoding: .utf8)
        try #"{"format": "timeline-sync", "version": 3, "device": "b", "records": []}"#
            .write(to: setup.shared.appendingPathComponent("b.timeline-sync.json"), atomically: true, encoding: .utf8)
        try #"{"format": "timeline-sync", "version": 1, "device": "c", "records": [{"account": "me", "timeline": "home", "hlc": "12"}]}"#
            .write(to: setup.shared.appendingPathComponent("c.timeline-sync.json"), atomically: true, encoding: .utf8)
        let result = try await setup.sync("phone")
        #expect(result.status == 0)
        let folder = setup.shared.path
        #expect(
            result.stderr == """
                warning: \(folder)/a.timeline-sync.json: skipped: not JSON: 1:1: unexpected 'g': expected a JSON value
                warning: \(folder)/b.timeline-sync.json: skipped: version 3 is not supported; this engine reads versions 1 to 2
                warning: \(folder)/c.timeline-sync.json: skipped: records[0].hlc must be a hybrid timestamp: 16 hexadecimal digits

                """)
        #expect(try await setup.shown("phone") == "p1")
    }

    @Test("CrossSessionSync false keeps positions on this device, whatever the transport says")
    func crossSessionSyncOff() async throws {
        let setup = try Setup(crossSessionSync: false)
        defer { setup.remove() }
        try await setup.save("phone", post: "p1", minute: 1)
        #expect(try await setup.sync("phone").stdout == "synced phone with None: heard from no other device; 0 moved, 1 sent\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: setup.shared.path).isEmpty)
    }

    @Test("engine validate rejects Directory without a Path, and a merge policy that is not registered, naming the registered ones")
    func validation() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("c.json").path
        try #"{"Sync": {"Policy": "Merge", "Transport": "Directory"}}"#.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await EngineProcess.run(["validate", file])
        #expect(result.status == 1)
        #expect(
            result.stderr == """
                \(file):1:21: error: Sync.Policy: "Merge" is not one of the allowed values: "CausalFurthest", "FurthestRead", "FurthestWithPrompt", "LastWriterWins", "MarkerArrival", "NewerForwardOnly", "Overwrite", "WallClock"
                \(file):1:43: error: Sync.Transport: Directory needs Path: write it as a dictionary, {Strategy: Directory, Path: …}

                """)
    }
}
