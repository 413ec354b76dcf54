import Foundation
import Testing
import TimelineEngineTestSupport

/// The command line as a new user meets it: one meaning per option name, the documented exit
/// codes, and no silent acceptance of mistakes.
@Suite("One consistent command line", .timeLimit(.minutes(10)))
struct CommandLineConsistencyTests {
    static let config = "config/SocialFusionTimelineConfiguration.plist"

    @Test("commands that only read a store say \"no such store\" (exit 2) for a mistyped path, and create nothing")
    func readersDoNotCreateStores() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("mistyped.sqlite").path
        var readers = [
            ["history", "--store", path], ["debug-export", "--store", path], ["maintenance", "--store", path],
            ["timeline", "show", "--store", path],
            ["restore", "--config", Self.config, "--timeline", "Tests/Fixtures/restore/timeline.jsonl", "--store", path],
        ]
        #if SyncServer
        readers += [["serve", "token", "list", "--store", path], ["serve", "token", "revoke", "--id", "1", "--store", path]]
        #endif
        for arguments in readers {
            let result = try await EngineProcess.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr == "\(path): error: no such store\n", "\(arguments)")
            #expect(!FileManager.default.fileExists(atPath: path), "\(arguments) created the store")
        }
    }

    @Test("a timeline file that cannot be read is exit 2 and \"cannot read\", not a stale source")
    func unreadableSource() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("s.sqlite").path
        let result = try await EngineProcess.run(["timeline", "fetch", "--source", "/nonexistent.json", "--store", store])
        #expect(result.status == 2)
        #expect(result.stderr == "/nonexistent.json: error: cannot read file: No such file or directory\n")
        let directoryResult = try await EngineProcess.run(["timeline", "fetch", "--source", directory.path, "--store", store])
        #expect(directoryResult.stderr == "\(directory.path): error: cannot read file: not a regular file (a directory)\n")
    }

    @Test("a directory or a device is \"not a regular file\", not \"Permission denied\" or a Foundation error code")
    func notRegularFiles() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let asDirectory = try await EngineProcess.run(["validate", directory.path])
        #expect(asDirectory.status == 2)
        #expect(asDirectory.stderr == "\(directory.path): error: cannot read file: not a regular file (a directory)\n")
        let device = try await EngineProcess.run(["restore", "--config", "/dev/zero", "--timeline", "x", "--position", "y"])
        #expect(device.status == 2)
        #expect(device.stderr == "/dev/zero: error: cannot read file: not a regular file (a device or socket)\n")
        let lint = try await EngineProcess.run(["plist", "lint", "/dev/zero"])
        #expect(lint.status == 2)
        #expect(lint.stderr == "/dev/zero: cannot read file: not a regular file (a device or socket)\n")
    }

    @Test("compare on a folder with no session files is an error, not \"Compared 0 sessions\"")
    func noSessions() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await EngineProcess.run(["compare", "--config", Self.config, "--sessions", directory.path])
        #expect(result.status == 2)
        #expect(result.stderr == "\(directory.path): error: no session files (.jsonl) to compare\n")
        #expect(result.stdout == "")
    }

    @Test("negative numbers are read as values and refused with the allowed range")
    func negativeNumbers() async throws {
        let cases: [([String], String)] = [
            (["compare", "--config", Self.config, "--sessions", "sessions", "--jobs", "-1"], "Error: --jobs must be at least 1, got -1"),
            (["simulate", "--posts", "p", "--sessions", "-2", "--seed", "1", "-o", "x"], "Error: --sessions must be at least 1, got -2"),
            (
                ["simulate", "--posts", "p", "--sessions", "1", "--seed", "-5", "-o", "x"],
                "Error: The value '-5' is invalid for '--seed <seed>': --seed takes an integer from 0 to 18446744073709551615"
            ),
            (["timeline", "show", "--store", "s", "--limit", "-1"], "Error: --limit must be 0 (all) or more, got -1"),
            (["plist", "lint", "--max-size", "-3", "x"], "Error: --max-size must be a positive number of bytes, got -3"),
            (["maintenance", "--store", "s", "--memory-use", "-0.5"], "Error: --memory-use takes a fraction from 0 to 1, or 'system'; got \"-0.5\""),
        ]
        for (arguments, message) in cases {
            let result = try await EngineProcess.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.hasPrefix(message + "\n"), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Missing value"), "\(arguments)")
        }
    }

    @Test("--timeline names a file everywhere; the timeline commands take the timeline's name as --timeline-name")
    func timelineOptionNames() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = directory.appendingPathComponent("s.sqlite").path
        let fetched = try await EngineProcess.run([
            "timeline", "fetch", "--source", "Tests/Fixtures/restore/timeline.jsonl", "--store", store,
            "--timeline-name", "lists/science",
        ])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let byName = try await EngineProcess.run(["timeline", "show", "--store", store, "--timeline-name", "lists/science", "--limit", "1"])
        let byFileOption = try await EngineProcess.run(["timeline", "show", "--store", store, "--timeline", "lists/science", "--limit", "1"])
        #expect(byName.status == 0)
        #expect(byName.stdout.hasPrefix("default / lists/science: 30 posts"))
        #expect(byFileOption.status == 2)
        #expect(byFileOption.stderr.hasPrefix("Error: Unknown option '--timeline'\n"))
        let help = try await EngineProcess.run(["timeline", "show", "--help"])
        #expect(help.stdout.contains("--timeline-name <timeline-name>"))
        #expect(!help.stdout.contains("--timeline <"))
    }

    @Test("every format option says text for text; plist convert has --output")
    func formatsAndOutputs() async throws {
        let text = try await EngineProcess.run(["compare", "--config", Self.config, "--sessions", "sessions/session-0001.jsonl", "--format", "text"])
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("Compared 1 session: 6 restore points, \(SessionCommandTests.defaultPipelines) pipelines.\n"))
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("c.json").path
        let converted = try await EngineProcess.run(["plist", "convert", "--format", "json", Self.config, "--output", output])
        #expect(converted.status == 0)
        #expect(try String(contentsOfFile: output, encoding: .utf8).hasPrefix("{\"SocialFusionTimelineConfiguration\":"))
    }

    @Test("restore refuses a configuration with errors unless --lenient, which runs it as the library does")
    func lenient() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("bad.json").path
        try Data(#"{"PositionPersistence": {"FallbackStrategy": "Top"}}"#.utf8).write(to: URL(fileURLWithPath: config))
        let arguments = [
            "restore", "--config", config, "--timeline", "Tests/Fixtures/restore/timeline.jsonl",
            "--position", "Tests/Fixtures/restore/position-lost.json",
        ]
        let strict = try await EngineProcess.run(arguments)
        #expect(strict.status == 1)
        #expect(strict.stdout == "")
        let lenient = try await EngineProcess.run(arguments + ["--lenient"])
        #expect(lenient.status == 0)
        #expect(lenient.stderr == strict.stderr)
        #expect(lenient.stdout.hasPrefix("post 1600581397479047170 at index 15"))  // FallbackStrategy's default, NearestContent
    }

    #if !SyncServer
    @Test("engine serve, in a build without the SyncServer trait, says in one line how to get it, exit 2")
    func serveNotBuilt() async throws {
        for arguments in [
            ["serve"], ["serve", "--store", "server.sqlite"], ["serve", "token", "list", "--store", "server.sqlite"], ["serve", "--verbose"],
        ] {
            let result = try await EngineProcess.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stdout == "", "\(arguments)")
            #expect(
                result.stderr
                    == "error: engine serve is not in this build; build it with the SyncServer trait: swift build --traits SyncServer\n",
                "\(arguments)")
        }
        #expect(!FileManager.default.fileExists(atPath: Fixtures.repositoryURL("server.sqlite").path))
    }
    #endif
}
