import Foundation
import Testing
import TimelineEngineTestSupport

/// `engine` logs the way the configuration and the command line say: `--verbose` and `--quiet`
/// reach the library's own loggers, `Debug` sets each category's level, `Logging.Sinks` decides
/// where the records go.
@Suite("engine logging from the configuration and the command line", .timeLimit(.minutes(10)))
struct LoggingCommandTests {
    static let restore = [
        "restore", "--config", "config/SocialFusionTimelineConfiguration.plist",
        "--timeline", "Tests/Fixtures/restore/timeline.jsonl", "--position", "Tests/Fixtures/restore/position-lost.json",
    ]
    static let pipeline =
        "ExactMatch > ContentSimilarity(Threshold: 0.8) > NeighborAnchor > TemporalProximity > ContentSimilarity > Fallback(Mode: NearestContent) | ViewportAnchor"

    /// The records of a standard error, without their time (`2026-11-25T16:17:23.790Z `), and
    /// with `directory`'s path written `DIR`.
    static func records(_ stderr: String, directory: URL? = nil) -> [String] {
        var text = stderr
        if let directory { text = text.replacingOccurrences(of: directory.path, with: "DIR") }
        return text.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("20"), let space = line.firstIndex(of: " ") else { return nil }
            return String(line[line.index(after: space)...])
        }
    }

    /// A folder with a shared sync folder and a JSON configuration: `debug` is the `Debug`
    /// section, `sinks` the `Logging.Sinks` array.
    struct Setup {
        let directory: URL
        var config: String { directory.appendingPathComponent("config.json").path }
        var log: URL { directory.appendingPathComponent("log.jsonl") }

        /// `sinks`, given the folder, is the JSON of `Logging.Sinks`.
        init(debug: String = "{}", sinks: ((URL) -> String)? = nil) throws {
            directory = try Fixtures.temporaryDirectory()
            let shared = directory.appendingPathComponent("shared")
            try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
            let logging = sinks.map { #", "Logging": {"Sinks": \#($0(directory))}"# } ?? ""
            let json = """
                {"PositionPersistence": {"CrossSessionSync": true},
                 "Sync": {"Transport": {"Strategy": "Directory", "Path": "\(shared.path)"}},
                 "Debug": \(debug)\(logging)}
                """
            try json.write(toFile: config, atomically: true, encoding: .utf8)
        }

        func store(_ device: String) -> String { directory.appendingPathComponent("\(device).sqlite").path }

        func save(_ device: String, post: String, _ extra: [String] = []) async throws -> EngineProcess.Result {
            try await EngineProcess.run(
                [
                    "position", "save", "--store", store(device), "--config", config, "--device", device, "--account", "me",
                    "--timeline-name", "home", "--post", post, "--created-at", "2026-11-24T08:00:00Z",
                ] + extra)
        }

        func sync(_ device: String, _ extra: [String] = []) async throws -> EngineProcess.Result {
            try await EngineProcess.run(["sync", "run", "--store", store(device), "--config", config, "--device", device] + extra)
        }

        func restore(_ device: String, _ extra: [String] = []) async throws -> EngineProcess.Result {
            try await EngineProcess.run(
                [
                    "restore", "--config", config, "--timeline", "Tests/Fixtures/restore/timeline.jsonl",
                    "--store", store(device), "--account", "me", "--timeline-name", "home",
                ] + extra)
        }

        /// The category and message of every record in the JSON Lines log.
        func logged() throws -> [(category: String, message: String, metadata: [String: String])] {
            guard FileManager.default.fileExists(atPath: log.path) else { return [] }
            return try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map { line in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return (object["category"] as? String ?? "", object["message"] as? String ?? "", object["metadata"] as? [String: String] ?? [:])
            }
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    @Test("--verbose shows the library's records on standard error: the restoration, and at trace every stage's verdict")
    func verboseRestore() async throws {
        let plain = try await EngineProcess.run(Self.restore)
        #expect(plain.status == 0)
        #expect(plain.stderr == "")
        let verbose = try await EngineProcess.run(Self.restore + ["--verbose"])
        #expect(verbose.stdout == plain.stdout)
        #expect(
            Self.records(verbose.stderr) == [
                "debug [position] restored confidence=0.2 index=15 method=fallback pipeline=\(Self.pipeline) post=1600581397479047170 posts=30 strategy=Fallback",
                "trace [position] stage verdict index=- stage=ExactMatch verdict=no candidate",
                "trace [position] stage verdict index=- stage=ContentSimilarity verdict=no candidate",
                "trace [position] stage verdict index=- stage=NeighborAnchor verdict=no candidate",
                "trace [position] stage verdict index=- stage=TemporalProximity verdict=no candidate",
                "trace [position] stage verdict index=- stage=ContentSimilarity verdict=no candidate",
                "trace [position] stage verdict index=15 stage=Fallback verdict=chosen: the last stage that answered (no candidate reached 0.50)",
            ])
    }

    @Test("--verbose shows the store, the save and the sync round's records, which a plain run leaves out")
    func verboseSync() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let saved = try await setup.save("phone", post: "100", ["--verbose"])
        #expect(
            Self.records(saved.stderr, directory: setup.directory) == [
                "debug [cache] store created applied=v1,v2-counters,v3-last-read,v4-sync,v5-heads,v6-gaps,v7-revision,v8-exact-times,v9-clocks-revision,v10-read-content,v11-head-reads store=DIR/phone.sqlite",
                "debug [position] saved account=me contentOffset=0.0 device=phone post=100 timeline=home viewportY=0.0",
            ])
        let plain = try await setup.sync("phone")
        #expect(plain.stderr == "")
        #expect(try await setup.sync("laptop").stderr == "")
        _ = try await setup.save("phone", post: "120")
        let verbose = try await setup.sync("phone", ["--verbose"])
        #expect(Self.records(verbose.stderr) == ["debug [sync] sync round device=phone heard=laptop moved=0 pulled=0 pushed=1 sent=1"])
        let heard = try await setup.sync("laptop", ["--verbose"])
        #expect(
            Self.records(heard.stderr) == [
                "debug [sync] register moved account=me device=laptop policy=CausalFurthest post=120 timeline=home",
                "debug [sync] sync round device=laptop heard=phone moved=1 pulled=1 pushed=0 sent=0",
            ])
    }

    /// `Logging.Sinks` with one JSON Lines sink writing `log.jsonl` in the folder.
    static let jsonLines: @Sendable (URL) -> String = { #"[{"Sink": "JSONLines", "Path": "\#($0.appendingPathComponent("log.jsonl").path)"}]"# }

    @Test("a JSON Lines sink in the configuration receives the save, sync and restore records; standard error gets none")
    func jsonLinesSink() async throws {
        let setup = try Setup(debug: #"{"PositionLogging": true, "SyncLogging": true}"#, sinks: Self.jsonLines)
        defer { setup.remove() }
        #expect(try await setup.save("phone", post: "1600589425271926784").stderr == "")
        #expect(try await setup.sync("phone").stderr == "")
        #expect(try await setup.sync("laptop").stderr == "")
        let restored = try await setup.restore("laptop")
        #expect(restored.status == 0)
        #expect(restored.stderr == "")
        let logged = try setup.logged()
        #expect(
            logged.map { "\($0.category) \($0.message)" } == [
                "position saved",
                "sync sync round",
                "sync register moved",
                "sync sync round",
                "position restored",
            ])
        #expect(
            logged.first?.metadata == [
                "account": "me", "contentOffset": "0.0", "device": "phone", "post": "1600589425271926784",
                "timeline": "home", "viewportY": "0.0",
            ])
        #expect(logged.last(where: { $0.message == "restored" })?.metadata["post"] == "1600589425271926784")
        #expect(logged.last(where: { $0.message == "restored" })?.metadata["method"] == "exact_match")
        #expect(
            logged.last(where: { $0.message == "sync round" })?.metadata == [
                "device": "laptop", "heard": "phone", "moved": "1", "pulled": "1", "pushed": "0", "sent": "0",
            ])
    }

    @Test("the Debug flags set each category's level: with PositionLogging false the position records go, the sync ones stay")
    func flagsSilenceCategories() async throws {
        let setup = try Setup(debug: #"{"PositionLogging": false, "SyncLogging": true}"#, sinks: Self.jsonLines)
        defer { setup.remove() }
        _ = try await setup.save("phone", post: "1600589425271926784")
        _ = try await setup.sync("phone")
        _ = try await setup.restore("phone")
        #expect(try setup.logged().map { "\($0.category) \($0.message)" } == ["sync sync round"])
    }

    @Test("--quiet leaves errors only, whatever Debug asks for")
    func quiet() async throws {
        let setup = try Setup(debug: #"{"VerboseMode": true}"#)
        defer { setup.remove() }
        let saved = try await setup.save("phone", post: "100", ["--quiet"])
        #expect(saved.status == 0)
        #expect(saved.stderr == "")
        // Without --quiet, VerboseMode logs the same save.
        #expect(Self.records(try await setup.save("phone", post: "101").stderr).count == 1)
        try FileManager.default.removeItem(at: setup.directory.appendingPathComponent("shared"))
        let offline = try await setup.sync("phone", ["--quiet"])
        #expect(offline.status == 3)
        #expect(
            offline.stderr == """
                error: \(setup.directory.path)/shared: the sync folder does not exist (a share not mounted?); it is never created
                offline: 2 changes kept in the outbox

                """)
    }

    @Test("a sink that cannot be made is a warning naming it, and the records go to standard error")
    func unusableSink() async throws {
        let setup = try Setup(
            debug: #"{"PositionLogging": true}"#,
            sinks: { _ in #"[{"Sink": "JSONLines", "Path": "/nonexistent/folder/log.jsonl"}]"# })
        defer { setup.remove() }
        let saved = try await setup.save("phone", post: "100")
        #expect(saved.status == 0)
        let lines = saved.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == #"warning: log sink "JSONLines": cannot create the log file /nonexistent/folder/log.jsonl: No such file or directory"#)
        #expect(
            Self.records(saved.stderr) == ["debug [position] saved account=me contentOffset=0.0 device=phone post=100 timeline=home viewportY=0.0"])
    }
}
