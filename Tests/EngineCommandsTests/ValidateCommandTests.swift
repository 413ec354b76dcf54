import Foundation
import Testing
import TimelineEngineTestSupport

@Suite("engine validate", .timeLimit(.minutes(10)))
struct ValidateCommandTests {
    static func write(_ text: String, _ name: String, in directory: URL) async throws {
        try Data(text.utf8).write(to: directory.appendingPathComponent(name))
    }

    static let bad = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
        \t<key>PositionPersistence</key>
        \t<dict>
        \t\t<key>FallbackStratgy</key>
        \t\t<string>TopOfTimeline</string>
        \t\t<key>AutoSaveInterval</key>
        \t\t<string>5</string>
        \t\t<key>MaxUnreadHistory</key>
        \t\t<integer>5</integer>
        \t</dict>
        </dict>
        </plist>

        """

    @Test("the bundled configurations are valid")
    func bundled() async throws {
        let result = try await EngineProcess.run([
            "validate", "config/SocialFusionTimelineConfiguration.plist", "config/Info.plist",
            "config/SocialFusionTimelineConfiguration.json",
        ])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                config/SocialFusionTimelineConfiguration.plist: OK
                config/Info.plist: OK
                config/SocialFusionTimelineConfiguration.json: OK

                """)
        #expect(result.stderr == "")
    }

    @Test("text output: every problem in every file, compiler style, exit 1")
    func text() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.write(Self.bad, "bad.plist", in: directory)
        try await Self.write("{\"Debug\": {\"VerboseMode\": 1}}", "bad.json", in: directory)
        let result = try await EngineProcess.run(["validate", "bad.plist", "bad.json"], in: directory)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(
            result.stderr == """
                bad.plist:6:3: error: PositionPersistence.FallbackStratgy: unknown key "FallbackStratgy"; did you mean "FallbackStrategy"? Valid keys: Enabled, SmartRestoration, MaxHistorySize, AutoSaveInterval, AutoSaveSettleDelay, CrossSessionSync, iCloudSyncEnabled, FallbackStrategy
                bad.plist:9:3: error: PositionPersistence.AutoSaveInterval: expected number, found string "5"
                bad.plist:10:3: warning: PositionPersistence.MaxUnreadHistory: key "MaxUnreadHistory" is deprecated: The seed app's bound on remembered read posts. Use TimelineCache.MaxReadPosts instead.
                bad.json:1:27: error: Debug.VerboseMode: expected boolean, found integer 1

                """)
    }

    @Test("warnings pass unless --strict")
    func strict() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.write("{\"PositionPersistence\": {\"MaxUnreadHistory\": 5}}", "old.json", in: directory)
        let lenient = try await EngineProcess.run(["validate", "old.json"], in: directory)
        #expect(lenient.status == 0)
        #expect(lenient.stdout == "old.json: OK with 1 warning\n")
        let strict = try await EngineProcess.run(["validate", "--strict", "old.json"], in: directory)
        #expect(strict.status == 1)
    }

    @Test("github annotations")
    func github() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.write(Self.bad, "bad.plist", in: directory)
        let result = try await EngineProcess.run(["validate", "--format", "github", "bad.plist"], in: directory)
        #expect(result.status == 1)
        #expect(
            result.stdout.split(separator: "\n").map(String.init) == [
                "::error file=bad.plist,line=6,col=3,title=PositionPersistence.FallbackStratgy::unknown key \"FallbackStratgy\"; did you mean \"FallbackStrategy\"? Valid keys: Enabled, SmartRestoration, MaxHistorySize, AutoSaveInterval, AutoSaveSettleDelay, CrossSessionSync, iCloudSyncEnabled, FallbackStrategy",
                "::error file=bad.plist,line=9,col=3,title=PositionPersistence.AutoSaveInterval::expected number, found string \"5\"",
                "::warning file=bad.plist,line=10,col=3,title=PositionPersistence.MaxUnreadHistory::key \"MaxUnreadHistory\" is deprecated: The seed app's bound on remembered read posts. Use TimelineCache.MaxReadPosts instead.",
            ])
    }

    @Test("json output")
    func json() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.write("<plist><dict><key>Debug</key><true/></dict></plist>", "a.plist", in: directory)
        let result = try await EngineProcess.run(["validate", "--format", "json", "a.plist"], in: directory)
        #expect(result.status == 1)
        #expect(
            result.stdout == """
                {
                  "valid": false,
                  "files": [
                    {
                      "file": "a.plist",
                      "valid": false,
                      "errors": 1,
                      "warnings": 0,
                      "diagnostics": [
                        {
                          "file": "a.plist",
                          "line": 1,
                          "column": 30,
                          "severity": "error",
                          "kind": "schema",
                          "path": "Debug",
                          "pointer": "/Debug",
                          "keyword": "type",
                          "message": "expected dictionary, found boolean true"
                        }
                      ]
                    }
                  ]
                }

                """)
    }

    @Test("malformed files are invalid (1); unreadable files and bad usage exit 2")
    func exitCodes() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Self.write("<plist><dict>", "cut.plist", in: directory)
        let malformed = try await EngineProcess.run(["validate", "cut.plist"], in: directory)
        #expect(malformed.status == 1)
        #expect(malformed.stderr == "cut.plist:1:14: error: unexpected end of the document: <dict> opened at line 1 is not closed\n")
        let missing = try await EngineProcess.run(["validate", "missing.plist", "cut.plist"], in: directory)
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("missing.plist: error: cannot read file: No such file or directory\n"))
        let usage = try await EngineProcess.run(["validate", "--format", "xml", "cut.plist"], in: directory)
        #expect(usage.status == 2)
        #expect(
            usage.stderr.hasPrefix("Error: The value 'xml' is invalid for '--format <format>'. Please provide one of 'text', 'json' or 'github'."))
        let none = try await EngineProcess.run(["validate"], in: directory)
        #expect(none.status == 2)
    }

    @Test("--help has examples")
    func help() async throws {
        let result = try await EngineProcess.run(["validate", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("engine validate --format github config/*.plist config/*.json"))
    }

    @Test("a huge value is quoted short and checked quickly: no echo of megabytes, no edit distance on them")
    func hugeValue() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("huge.plist").path
        let value = String(repeating: "A", count: 5_000_000)
        try Data(
            ("<plist version=\"1.0\"><dict><key>PositionPersistence</key><dict><key>FallbackStrategy</key><string>" + value
                + "</string><key>" + value + "</key><true/></dict></dict></plist>").utf8
        ).write(to: URL(fileURLWithPath: path))
        let result = try await EngineProcess.run(["validate", path])
        #expect(result.status == 1)
        let shown = "\"" + String(repeating: "A", count: 100) + "…\" (5000000 bytes)"
        #expect(
            result.stderr == """
                \(path):1:91: error: PositionPersistence.FallbackStrategy: \(shown) is not one of the allowed values: "NearestContent", "TopOfTimeline", "LastKnownPosition", "NewestPost", "OldestPost"
                \(path):1:5000108: error: PositionPersistence[\(shown)]: unknown key \(shown). Valid keys: Enabled, SmartRestoration, MaxHistorySize, AutoSaveInterval, AutoSaveSettleDelay, CrossSessionSync, iCloudSyncEnabled, FallbackStrategy

                """)
    }
}
