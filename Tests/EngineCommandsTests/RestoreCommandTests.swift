import Foundation
import Testing
import TimelineEngineRestoration
import TimelineEngineTestSupport

@Suite("engine restore and engine strategies", .timeLimit(.minutes(10)))
struct RestoreCommandTests {
    static let timeline = "Tests/Fixtures/restore/timeline.jsonl"
    static let config = "config/SocialFusionTimelineConfiguration.plist"
    /// The names an unknown-strategy message lists, from the registry.
    static let registeredStages = BuiltInStrategies.registry.stageTypes.map(\.name).joined(separator: ", ")

    @Test("the reader lands on the same post and pixel")
    func exactMatch() async throws {
        let result = try await EngineProcess.run([
            "restore", "--config", Self.config, "--timeline", Self.timeline,
            "--position", "Tests/Fixtures/restore/position.json",
        ])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                post 1600589425271926784 at index 12, content offset 1824 pt, viewportY -40 pt
                method exact_match by ExactMatch, confidence 1.00
                post 1600589425271926784 is still in the timeline at index 12

                """)
    }

    @Test("editing FallbackStrategy in the plist changes what engine restore returns")
    func fallbackStrategyEdit() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = try String(contentsOf: Fixtures.repositoryURL(Self.config), encoding: .utf8)
        let edited = original.replacingOccurrences(of: "<string>NearestContent</string>", with: "<string>TopOfTimeline</string>")
        #expect(edited != original)
        let editedPath = directory.appendingPathComponent("edited.plist").path
        try edited.write(toFile: editedPath, atomically: true, encoding: .utf8)
        let arguments = ["--timeline", Self.timeline, "--position", "Tests/Fixtures/restore/position-lost.json", "--format", "json"]
        let nearest = try await EngineProcess.run(["restore", "--config", Self.config] + arguments)
        let top = try await EngineProcess.run(["restore", "--config", editedPath] + arguments)
        #expect(
            nearest.stdout == """
                {
                  "postId": "1600581397479047170",
                  "index": 15,
                  "contentOffset": 2300.0,
                  "viewportY": 0.0,
                  "method": "fallback",
                  "strategy": "Fallback",
                  "confidence": 0.2,
                  "explanation": "NearestContent: index 20 of 40 maps to index 15 of 30"
                }

                """)
        #expect(
            top.stdout == """
                {
                  "postId": "1600603975363006470",
                  "index": 0,
                  "contentOffset": 0.0,
                  "viewportY": 0.0,
                  "method": "fallback",
                  "strategy": "Fallback",
                  "confidence": 0.1,
                  "explanation": "TopOfTimeline: the top of the timeline"
                }

                """)
    }

    @Test("--explain shows every stage's verdict; --strategy overrides the pipeline")
    func explainAndStrategy() async throws {
        let result = try await EngineProcess.run([
            "restore", "--config", Self.config, "--timeline", Self.timeline,
            "--position", "Tests/Fixtures/restore/position-lost.json", "--explain",
            "--strategy", "ExactMatch > Fallback(Mode: OldestPost)",
        ])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                post 1600558094274424833 at index 29, content offset 4000 pt, viewportY 648 pt
                method fallback by Fallback, confidence 0.15
                OldestPost: the earliest created post

                pipeline: ExactMatch > Fallback(Mode: OldestPost) | ViewportAnchor
                  ExactMatch: no candidate
                  Fallback: post 1600558094274424833 (confidence 0.15) — chosen: the last stage that answered (no candidate reached 0.50)
                    OldestPost: the earliest created post

                """)
    }

    @Test("an empty timeline has nothing to restore: a clear message and exit 1")
    func emptyTimeline() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let empty = directory.appendingPathComponent("empty.json").path
        try Data("{\"posts\": []}".utf8).write(to: URL(fileURLWithPath: empty))
        let result = try await EngineProcess.run([
            "restore", "--config", Self.config, "--timeline", empty,
            "--position", "Tests/Fixtures/restore/position.json",
        ])
        #expect(result.status == 1)
        #expect(result.stderr == "\(empty): the timeline is empty; there is nothing to restore\n")
    }

    @Test("a pipeline that finds nothing says so, not that the timeline is empty")
    func nothingFound() async throws {
        let result = try await EngineProcess.run([
            "restore", "--config", Self.config, "--timeline", Self.timeline,
            "--position", "Tests/Fixtures/restore/position-lost.json", "--strategy", "ExactMatch",
        ])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "error: no stage of ExactMatch | ViewportAnchor found a place in the 30 posts of \(Self.timeline); end the pipeline with Fallback to always find one\n"
        )
    }

    @Test("numbers that overflow a conversion are refused at their line, not a crash (exit 132 before)")
    func extremeNumbers() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tall = directory.appendingPathComponent("tall.jsonl").path
        try Data(#"{"id":"a","createdAt":"2022-12-07T21:31:40Z","height":1e20}\#n{"id":"b","createdAt":"2022-12-07T21:30:40Z"}"#.utf8).write(
            to: URL(fileURLWithPath: tall))
        let far = directory.appendingPathComponent("far.json").path
        try Data(#"{"postId":"a","index":9223372036854775808}"#.utf8).write(to: URL(fileURLWithPath: far))
        let tallResult = try await EngineProcess.run([
            "restore", "--config", Self.config, "--timeline", tall, "--position", "Tests/Fixtures/restore/position.json",
        ])
        #expect(tallResult.status == 1)
        #expect(tallResult.stderr == "\(tall):1:55: post a: \"height\" must be greater than 0 and at most 1000000, found 1e+20\n")
        let farResult = try await EngineProcess.run(["restore", "--config", Self.config, "--timeline", Self.timeline, "--position", far])
        #expect(farResult.status == 1)
        #expect(farResult.stderr == "\(far):1:23: \"index\" must be an integer from 0 to 2147483647, found 9223372036854775808\n")
        let deep = String(repeating: "BestConfidence(", count: 8000) + "ExactMatch" + String(repeating: ")", count: 8000)
        let deepResult = try await EngineProcess.run([
            "restore", "--config", Self.config, "--timeline", Self.timeline,
            "--position", "Tests/Fixtures/restore/position.json", "--strategy", deep,
        ])
        #expect(deepResult.status == 2)
        #expect(deepResult.stderr == "error: invalid --strategy spec at column 961: compositions nest deeper than 64 levels\n")
    }

    @Test("validate passes only the compositions every command builds: two stages in a row are a composition of their own")
    func validateAgreesOnDepth() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func configuration(_ levels: Int) throws -> String {
            var stage = #"{"Strategy": "ExactMatch"}"#
            for _ in 0..<levels { stage = #"{"Strategy": "FirstMatch", "Stages": ["# + stage + "]}" }
            let path = directory.appendingPathComponent("deep-\(levels).json").path
            try Data((#"{"Restoration": {"Pipeline": ["# + stage + #", {"Strategy": "Fallback"}]}}"#).utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        for (levels, builds) in [(62, true), (63, false)] {
            let path = try configuration(levels)
            let validated = try await EngineProcess.run(["validate", path])
            let restored = try await EngineProcess.run([
                "restore", "--config", path, "--timeline", Self.timeline,
                "--position", "Tests/Fixtures/restore/position.json",
            ])
            #expect((validated.status == 0) == builds, "\(levels): \(validated.stdout)")
            #expect((restored.status == 0) == builds, "\(levels): \(restored.stderr)")
            let said = validated.stdout + validated.stderr
            if !builds {
                #expect(said.contains("error: Restoration.Pipeline[0]") && said.contains("compositions nest deeper than 64 levels"), "\(said)")
            }
        }
    }

    @Test("a bad spec is a usage error")
    func badSpec() async throws {
        let result = try await EngineProcess.run([
            "restore", "--config", Self.config, "--timeline", Self.timeline,
            "--position", "Tests/Fixtures/restore/position.json", "--strategy", "ExactMatch > Fallbak",
        ])
        #expect(result.status == 2)
        #expect(result.stderr == "error: unknown strategy \"Fallbak\"; did you mean \"Fallback\"? Registered: \(Self.registeredStages)\n")
    }

    @Test("engine strategies lists every registered type")
    func strategies() async throws {
        let text = try await EngineProcess.run(["strategies"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("      Window: number ≥ 0, ≤ 315360000, default 3600 — Largest |Δt| in seconds"))
        let json = try await EngineProcess.run(["strategies", "--format", "json"])
        for name in BuiltInStrategies.registry.names {
            #expect(json.stdout.contains("\"name\": \"\(name)\""), "\(name)")
        }
    }

    @Test("Strategies/README.md's table is the registry's, as engine strategies --format markdown prints it")
    func readmeTable() async throws {
        let table = try await EngineProcess.run(["strategies", "--format", "markdown"])
        let readme = try String(contentsOf: Fixtures.repositoryURL("Strategies/README.md"), encoding: .utf8)
        let section = readme.components(separatedBy: "<!-- strategies:begin -->\n").last?.components(separatedBy: "<!-- strategies:end -->").first
        #expect(section == table.stdout, "run Strategies/generate.sh")
    }
}
