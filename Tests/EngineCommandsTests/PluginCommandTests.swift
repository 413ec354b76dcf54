import Foundation
import Testing
import TimelineEngineRestoration
import TimelineEngineTestSupport

/// Plugins loaded at run time: the Swift example plugin under `Examples/` and C plugins built
/// here, through every command that takes `--plugin`.
@Suite("Strategy plugins on the command line", .serialized, .timeLimit(.minutes(30)))
struct PluginCommandTests {
    static let restore = ["--timeline", "Tests/Fixtures/restore/timeline.jsonl", "--position", "Tests/Fixtures/restore/position-author.json"]

    /// `Examples/SameAuthorPlugin`, built for this run.
    static func sameAuthor() async throws -> String {
        try await ExampleBuilds.build("SameAuthorPlugin").appendingPathComponent(ExampleBuilds.sharedLibrary("SameAuthorPlugin")).path
    }

    /// `Tests/Fixtures/plugins/test-plugin.c` built with `defines` into `directory`.
    static func cPlugin(_ defines: [String], in directory: URL) async throws -> String {
        let output = directory.appendingPathComponent(ExampleBuilds.sharedLibrary("test-" + (defines.first ?? "good")))
        try await ExampleBuilds.compilePlugin(Fixtures.url("plugins/test-plugin.c"), defines: defines, output: output)
        return output.path
    }

    @Test("engine strategies check runs a plugin's scenarios and the common checks")
    func check() async throws {
        let plugin = try await Self.sameAuthor()
        let result = try await EngineProcess.run(["strategies", "check", "--plugin", plugin])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                PASS SameAuthor: the author's nearest post in time, not a stranger's nearer one
                PASS SameAuthor: outside the window
                PASS SameAuthor: the saved post is still there
                PASS SameAuthor: common: empty timeline
                PASS SameAuthor: common: no snapshot
                PASS SameAuthor: common: post present
                PASS SameAuthor: common: every post replaced
                7 of 7 checks passed for 1 strategy.

                """)
        let listed = try await EngineProcess.run(["strategies", "--plugin", plugin])
        #expect(
            listed.stdout.contains(
                "  SameAuthor — Stands in the saved author's post created closest in time to the saved one (a plugin).\n      Window: number ≥ 0, default 3600"
            ))
    }

    @Test("engine validate checks a plugin's parameters with lines and did-you-mean, like a built-in's")
    func validate() async throws {
        let plugin = try await Self.sameAuthor()
        let good = try await EngineProcess.run(["validate", "--plugin", plugin, "Tests/Fixtures/plugins/same-author.plist"])
        #expect(good.status == 0)
        #expect(good.stdout == "Tests/Fixtures/plugins/same-author.plist: OK\n")
        let bad = try await EngineProcess.run(["validate", "--plugin", plugin, "Tests/Fixtures/plugins/same-author-bad.plist"])
        #expect(bad.status == 1)
        let names = (BuiltInStrategies.registry.stageTypes.map(\.name) + ["SameAuthor"]).map { "\"\($0)\"" }.joined(separator: ", ")
        #expect(
            bad.stderr == """
                Tests/Fixtures/plugins/same-author-bad.plist:9:73: error: Restoration.Pipeline[1].Window: -3 is less than the minimum 0 (allowed: ≥ 0)
                Tests/Fixtures/plugins/same-author-bad.plist:10:29: error: Restoration.Pipeline[2].Strategy: "SameAuthr" is not one of the allowed values: \(names); did you mean "SameAuthor"?
                Tests/Fixtures/plugins/same-author-bad.plist:11:29: error: Restoration.Pipeline[3].Strategy: "Falback" is not one of the allowed values: \(names); did you mean "Fallback"?

                """)
        let without = try await EngineProcess.run(["validate", "Tests/Fixtures/plugins/same-author.plist"])
        #expect(without.status == 1)
        #expect(
            without.stderr.hasPrefix(
                "Tests/Fixtures/plugins/same-author.plist:9:29: error: Restoration.Pipeline[1].Strategy: \"SameAuthor\" is not one of the allowed values"
            ))
    }

    @Test("engine restore runs a plugin, and a configuration's Plugins key loads it relative to the file")
    func restoreWithPlugin() async throws {
        let plugin = try await Self.sameAuthor()
        let expected = """
            post 1600572605186146305 at index 23, content offset 3616 pt, viewportY -40 pt
            method same_author by SameAuthor, confidence 0.70
            post 1600572605186146305 by davidmasp was created 2 min from the saved post

            """
        let result = try await EngineProcess.run(
            ["restore", "--config", "Tests/Fixtures/plugins/same-author.plist", "--plugin", plugin] + Self.restore)
        #expect(result.status == 0)
        #expect(result.stdout == expected)
        // The same through the configuration: Plugins lists the library, relative to the file.
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(atPath: plugin, toPath: directory.appendingPathComponent("plugin.so").path)
        let plist = try String(contentsOf: Fixtures.url("plugins/same-author.plist"), encoding: .utf8)
            .replacingOccurrences(
                of: "<key>Restoration</key>", with: "<key>Plugins</key>\n\t<array><string>plugin.so</string></array>\n\t<key>Restoration</key>")
        let config = directory.appendingPathComponent("config.plist")
        try plist.write(to: config, atomically: true, encoding: .utf8)
        let configured = try await EngineProcess.run(["restore", "--config", config.path] + Self.restore)
        #expect(configured.stdout == expected)
        #expect(try await EngineProcess.run(["validate", "--load-plugins", config.path]).status == 0)
    }

    @Test("engine compare prints a plugin pipeline beside the configured one and the baseline")
    func compare() async throws {
        let plugin = try await Self.sameAuthor()
        let result = try await EngineProcess.run([
            "compare", "--plugin", plugin, "--config", "config/SocialFusionTimelineConfiguration.plist",
            "--sessions", "sessions/", "--strategy", "ExactMatch > SameAuthor > Fallback",
            "--strategy", "ExactMatch > AuthorRun > Fallback", "--format", "csv",
        ])
        #expect(result.status == 0)
        let rows = result.stdout.components(separatedBy: "\r\n").filter { $0.contains(",all,") }
        #expect(
            rows.map { $0.components(separatedBy: ",")[0] } == [
                "configured", "ExactMatch > SameAuthor > Fallback", "ExactMatch > AuthorRun > Fallback", "baseline",
            ])
        // The plugin and the built-in run the same algorithm: the same figures, latency aside.
        let figures = rows.map { $0.components(separatedBy: ",")[3..<12].joined(separator: ",") }
        #expect(figures[1] == figures[2])
    }

    @Test("a plugin in C works too; one whose scenarios cannot win inside FirstMatch gets a warning")
    func cPlugin() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plugin = try await Self.cPlugin([], in: directory)
        let result = try await EngineProcess.run(["strategies", "check", "--plugin", plugin, "--quiet"])
        #expect(result.status == 0)
        #expect(result.stdout == "5 of 5 checks passed for 1 strategy.\n")
        #expect(
            result.stderr
                == "warning: TopPost: every scenario's confidence is below Restoration.MinimumConfidence (0.5); inside FirstMatch it never wins unless it answers last\n"
        )
    }

    @Test(
        "a plugin that cannot be used is refused whole, with its path, and exit code 2",
        arguments: [
            ("WRONG_VERSION", "built for plugin ABI version 99; this engine loads version 1"),
            ("NO_FREE", "not a TimelineEngine plugin: the symbol timeline_plugin_free is missing"),
            ("BAD_JSON", "timeline_plugin_describe returned invalid JSON: 1:36: expected a string key, found end of input"),
            (
                "BAD_SCHEMA",
                "TopPost: the parameter schema does not compile: schema at /properties/Level/type: \"type\" must name one of array, boolean, integer, null, number, object, string"
            ),
            ("CLASH", "strategy \"ExactMatch\" is already registered"),
            ("BAD_KIND", "describe: strategies[0].kind must be one of restoration, fallback, found \"cache\""),
            (
                "FAILING_SCENARIO",
                "TopPost fails its check \"the top post\": expected post p1, got post p0 (engine strategies check --plugin PLUGIN shows every check)"
            ),
            (
                "MAKE_FAILS",
                "TopPost fails its check \"the top post\": cannot be built: TopPost: this build cannot make TopPost (engine strategies check --plugin PLUGIN shows every check)"
            ),
        ])
    func refused(_ define: String, _ message: String) async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plugin = try await Self.cPlugin([define], in: directory)
        for command in [["strategies", "check"], ["validate", "config/SocialFusionTimelineConfiguration.plist"]] {
            let result = try await EngineProcess.run(command + ["--plugin", plugin])
            #expect(result.status == 2, "\(command)")
            #expect(result.stderr == "\(plugin): error: \(message.replacingOccurrences(of: "PLUGIN", with: plugin))\n", "\(command)")
        }
    }

    @Test("a path that is missing, a folder or not a shared library is refused with its path")
    func notAPlugin() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // A pipe would make dlopen wait for a writer for ever.
        let fifo = directory.appendingPathComponent("plugin.so").path
        #expect(mkfifo(fifo, 0o600) == 0)
        for (path, message) in [
            ("missing.so", "no such file\n"), ("Tests", "not a regular file (a directory)\n"),
            (fifo, "not a regular file (a pipe)\n"), ("/dev/zero", "not a regular file (a device or socket)\n"),
            ("README.md", "not a loadable shared library ("),
        ] {
            let result = try await EngineProcess.run(
                ["restore", "--config", "config/SocialFusionTimelineConfiguration.plist", "--plugin", path]
                    + Self.restore)
            #expect(result.status == 2)
            // What dlopen says of a file that is not a library depends on the platform.
            #expect(result.stderr.hasPrefix("\(path): error: \(message)"), "\(result.stderr)")
        }
    }

    @Test("a parameter schema with local references into its own $defs is composed, validated and used")
    func localReferences() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plugin = try await Self.cPlugin(["LOCAL_REF"], in: directory)
        let check = try await EngineProcess.run(["strategies", "check", "--plugin", plugin, "--quiet"])
        #expect(check.status == 0, "\(check.stderr)")
        let config = directory.appendingPathComponent("top.plist")
        for (level, status, stderr) in [
            ("0.4", 0, ""),
            ("2", 1, "\(config.path):9:72: error: Restoration.Pipeline[0].Level: 2 is greater than the maximum 1 (allowed: ≥ 0 and ≤ 1)\n"),
        ] {
            try Self.topPostConfiguration(level: level).write(to: config, atomically: true, encoding: .utf8)
            let validated = try await EngineProcess.run(["validate", "--plugin", plugin, config.path])
            #expect(validated.status == status, "\(validated.stderr)")
            #expect(validated.stderr == stderr)
        }
        try Self.topPostConfiguration(level: "0.4").write(to: config, atomically: true, encoding: .utf8)
        let restored = try await EngineProcess.run(["restore", "--config", config.path, "--plugin", plugin] + Self.restore)
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(restored.stdout.contains("method top_post by TopPost, confidence 0.40"), "\(restored.stdout)")
    }

    /// A configuration whose pipeline is TopPost with `level`, one stage on line 9.
    static func topPostConfiguration(level: String, plugins: [String] = []) -> String {
        let listed = plugins.isEmpty ? "" : "<key>Plugins</key><array>" + plugins.map { "<string>\($0)</string>" }.joined() + "</array>"
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
              <key>Restoration</key>
              <dict>
                <key>Pipeline</key>
                <array>
                  <dict><key>Strategy</key><string>TopPost</string><key>Level</key><real>\(level)</real></dict>
                </array>
              </dict>\(listed)
            </dict>
            </plist>

            """
    }

    @Test("a plugin call that never returns ends the command at the deadline, naming the plugin and the call, exit 1")
    func hangingPlugin() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plugin = try await Self.cPlugin(["HANGS"], in: directory)
        // The loader runs the plugin's scenarios, so the first propose is at load.
        for command in [
            ["strategies", "check", "--plugin", plugin],
            ["restore", "--config", "config/SocialFusionTimelineConfiguration.plist", "--plugin", plugin] + Self.restore,
        ] {
            let result = try await EngineProcess.run(command, environment: ["ENGINE_PLUGIN_TIMEOUT": "1"], timeout: 60)
            #expect(result.status == 1, "\(command)")
            #expect(
                result.stderr
                    == "\(plugin): error: timeline_plugin_propose did not return within 1 s; stopped (ENGINE_PLUGIN_TIMEOUT sets the deadline in seconds)\n"
            )
        }
    }

    @Test("validate runs no code from the plugins a file lists, unless --load-plugins asks")
    func validateLoadsNothing() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plugin = try await Self.cPlugin(["MARKS_LOAD"], in: directory)
        let mark = directory.appendingPathComponent("loaded.txt")
        let config = directory.appendingPathComponent("listed.plist")
        try Self.topPostConfiguration(level: "0.4", plugins: [URL(fileURLWithPath: plugin).lastPathComponent])
            .write(to: config, atomically: true, encoding: .utf8)
        let gated = try await EngineProcess.run(["validate", config.path], environment: ["PLUGIN_MARK": mark.path])
        #expect(!FileManager.default.fileExists(atPath: mark.path))
        #expect(gated.status == 1)
        #expect(
            gated.stderr.hasPrefix(
                """
                \(config.path): note: Plugins lists 1 library, not loaded; their strategies are unknown here (--load-plugins loads them, running their code)
                \(config.path):9:32: error: Restoration.Pipeline[0].Strategy: "TopPost" is not one of the allowed values
                """), "\(gated.stderr)")
        // config print never loads plugins (and so calls TopPost unknown).
        let printed = try await EngineProcess.run(["config", "print", config.path], environment: ["PLUGIN_MARK": mark.path])
        #expect(printed.stdout.contains("<string>TopPost</string>"))
        #expect(!FileManager.default.fileExists(atPath: mark.path))
        let loaded = try await EngineProcess.run(["validate", "--load-plugins", config.path], environment: ["PLUGIN_MARK": mark.path])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(loaded.stdout == "\(config.path): OK\n")
        #expect(FileManager.default.fileExists(atPath: mark.path))
    }
}
