import Foundation
import Testing
import TimelineEngineTestSupport

@Suite("engine plist, schema and config", .timeLimit(.minutes(10)))
struct PlistAndSchemaCommandTests {
    @Test("plist lint: OK lines on stdout, FILE:LINE: message on stderr, continues; exit 1 for a bad file, 2 when one cannot be read")
    func lint() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("<plist><true/></plist>".utf8).write(to: directory.appendingPathComponent("good.plist"))
        try Data("<plist>\n<dict><key>a</key></dict></plist>".utf8).write(to: directory.appendingPathComponent("bad.plist"))
        let result = try await EngineProcess.run(["plist", "lint", "bad.plist", "good.plist", "gone.plist"], in: directory)
        #expect(result.status == 2)
        #expect(try await EngineProcess.run(["plist", "lint", "bad.plist", "good.plist"], in: directory).status == 1)
        #expect(result.stdout == "good.plist: OK\n")
        #expect(
            result.stderr == """
                bad.plist:2: key "a" has no value
                gone.plist: cannot read file: No such file or directory

                """)
        let ok = try await EngineProcess.run(["plist", "lint", "good.plist"], in: directory)
        #expect(ok.status == 0)
    }

    @Test("plist lint passes the whole valid corpus")
    func lintCorpus() async throws {
        let files = Fixtures.files(in: "plist-corpus/valid", withSuffix: ".plist").map(\.path)
        let result = try await EngineProcess.run(["plist", "lint"] + files)
        #expect(result.status == 0)
        #expect(result.stdout.split(separator: "\n").count == files.count)
    }

    @Test("plist convert to json, typed-json and xml1")
    func convert() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(
            "<plist><dict><key>a</key><array><integer>1</integer><real>0.5</real><string>x</string></array><key>b</key><true/></dict></plist>".utf8
        )
        .write(to: directory.appendingPathComponent("in.plist"))
        let json = try await EngineProcess.run(["plist", "convert", "--format", "json", "in.plist"], in: directory)
        #expect(json.stdout == "{\"a\":[1,0.5,\"x\"],\"b\":true}\n")
        let typed = try await EngineProcess.run(["plist", "convert", "--format", "typed-json", "in.plist", "-o", "-"], in: directory)
        #expect(
            typed.stdout
                == "{\"dict\": [\n [\"a\", {\"array\": [\n  {\"integer\": \"1\"},\n  {\"real\": 0.5},\n  {\"string\": \"x\"}\n ]}],\n [\"b\", {\"bool\": true}]\n]}\n"
        )
        let xml = try await EngineProcess.run(["plist", "convert", "--format", "xml1", "in.plist", "-o", "out.plist"], in: directory)
        #expect(xml.status == 0)
        let written = try String(contentsOf: directory.appendingPathComponent("out.plist"), encoding: .utf8)
        #expect(written.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC"))
        let back = try await EngineProcess.run(["plist", "convert", "--format", "xml1", "out.plist"], in: directory)
        #expect(back.stdout == written)
    }

    @Test("-o never replaces what is not a regular file: a link is followed and kept, a device written through, a FIFO or a folder refused")
    func outputPaths() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("<plist><dict><key>a</key><true/></dict></plist>".utf8).write(to: directory.appendingPathComponent("in.plist"))
        func convert(to output: String) async throws -> EngineProcess.Result {
            try await EngineProcess.run(["plist", "convert", "--format", "json", "in.plist", "-o", output], in: directory)
        }
        // A link: the file it names is written, and the link stays a link.
        try Data("old".utf8).write(to: directory.appendingPathComponent("real.json"))
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("link.json").path, withDestinationPath: "real.json")
        #expect(try await convert(to: "link.json").status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory.appendingPathComponent("link.json").path) == "real.json")
        #expect(try String(contentsOf: directory.appendingPathComponent("real.json"), encoding: .utf8) == "{\"a\":true}\n")
        // A FIFO: refused at once (a write would wait for a reader), and left a FIFO.
        let fifo = directory.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let refused = try await convert(to: "fifo")
        #expect(refused.status == 2)
        #expect(
            refused.stderr
                == "fifo: error: cannot write the converted file: it is not a regular file (a FIFO or another special file); name a file, or leave -o out for standard output\n"
        )
        #expect(try FileManager.default.attributesOfItem(atPath: fifo)[.type] as? FileAttributeType != .typeRegular)
        // A folder: refused.
        #expect(try await convert(to: ".").stderr == ".: error: cannot write the converted file: it is a directory\n")
        // A character device: written through; a full one is an error, not a success.
        #expect(try await convert(to: "/dev/null").status == 0)
        let full = try await convert(to: "/dev/full")
        #expect(full.status == 2)
        #expect(full.stderr == "/dev/full: error: cannot write the converted file: No space left on device\n")
    }

    @Test("escape sequences in a configuration's variable names and folder are refused by validate, and escaped where an error names them")
    func hostileConfigurationText() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = #"""
            {"SocialFusionTimelineConfiguration": {"PositionPersistence": {"CrossSessionSync": true}, "Sync": {
            "EncryptionPhraseVariable": "A\u001b]0;owned\u0007B",
            "Transport": {"Strategy": "HTTP", "URL": "http://127.0.0.1:9/", "TokenVariable": "T\u001b[2J"}}}}
            """#
        try Data(text.utf8).write(to: directory.appendingPathComponent("c.json"))
        let validated = try await EngineProcess.run(["validate", "c.json"], in: directory)
        #expect(validated.status == 1)
        #expect(
            validated.stderr.components(separatedBy: "\n").filter { !$0.isEmpty } == [
                #"c.json:2:29: error: Sync.EncryptionPhraseVariable: "A\u001b]0;owned\u0007B" does not match the pattern "^([A-Za-z_][A-Za-z0-9_]*)?$""#,
                #"c.json:3:82: error: Sync.Transport.TokenVariable: "T\u001b[2J" does not match the pattern "^[A-Za-z_][A-Za-z0-9_]*$""#,
            ])
        // Run anyway (--lenient), the values are set aside, and nothing raw reaches the terminal.
        let run = try await EngineProcess.run(["sync", "run", "--config", "c.json", "--store", "s.sqlite", "--lenient"], in: directory)
        #expect(!run.stderr.contains("\u{1b}"))
        // An error that names a variable given on the command line escapes it.
        let phrase = try await EngineProcess.run(["sync", "phrase", "--key-id", "V\u{1b}[2J"], in: directory)
        #expect(phrase.stderr == "error: V\\u{1b}[2J is not set: set it to the recovery phrase\n")
    }

    @Test("validate refuses a phrase to seal with beside a transport that cannot seal, at the phrase's line; a folder that can passes")
    func phraseWithoutSealing() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func configuration(_ transport: String) -> String {
            """
            {"SocialFusionTimelineConfiguration": {"PositionPersistence": {"CrossSessionSync": true},
            "Sync": {"EncryptionPhraseVariable": "PHRASE", "Transport": \(transport)}}}
            """
        }
        try Data(configuration(#"{"Strategy": "MastodonMarkers", "URL": "https://mastodon.example"}"#).utf8)
            .write(to: directory.appendingPathComponent("markers.json"))
        try Data(configuration(#"{"Strategy": "Directory", "Path": "/tmp"}"#).utf8).write(to: directory.appendingPathComponent("folder.json"))
        let markers = try await EngineProcess.run(["validate", "markers.json"], in: directory)
        #expect(markers.status == 1)
        #expect(
            markers.stderr
                == "markers.json:2:38: error: Sync.EncryptionPhraseVariable: Sync.Transport MastodonMarkers cannot seal positions end to end: its server must read them. Unset Sync.EncryptionPhraseVariable, or choose HTTP, Directory or iCloudKeyValueStore\n"
        )
        let folder = try await EngineProcess.run(["validate", "folder.json"], in: directory)
        #expect(folder.stdout == "folder.json: OK\n")
    }

    @Test("plist convert refuses dates in plain JSON, naming the key path")
    func convertDate() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("<plist><dict>\n<key>when</key>\n<date>2020-01-01T00:00:00Z</date></dict></plist>".utf8)
            .write(to: directory.appendingPathComponent("d.plist"))
        let result = try await EngineProcess.run(["plist", "convert", "--format", "json", "d.plist"], in: directory)
        #expect(result.status == 1)
        #expect(result.stderr == "d.plist:3: date at when has no JSON representation; use --format typed-json to keep it\n")
    }

    @Test("schema validate: any JSON value, plists too, one line per error")
    func schemaValidate() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("{\"type\": \"integer\", \"minimum\": 10}".utf8).write(to: directory.appendingPathComponent("s.json"))
        try Data("12".utf8).write(to: directory.appendingPathComponent("ok.json"))
        try Data("3".utf8).write(to: directory.appendingPathComponent("low.json"))
        try Data("<plist>\n<string>x</string></plist>".utf8).write(to: directory.appendingPathComponent("p.plist"))
        let result = try await EngineProcess.run(["schema", "validate", "--schema", "s.json", "ok.json", "low.json", "p.plist"], in: directory)
        #expect(result.status == 1)
        #expect(result.stdout == "ok.json: OK\n")
        #expect(
            result.stderr == """
                low.json:1:1: error: 3 is less than the minimum 10 (allowed: ≥ 10)
                p.plist:2:1: error: expected integer, found string "x"

                """)
        let bad = try await EngineProcess.run(["schema", "validate", "--schema", "missing.json", "ok.json"], in: directory)
        #expect(bad.status == 2)
    }

    @Test("schema print is the schema file, byte for byte")
    func schemaPrint() async throws {
        let result = try await EngineProcess.run(["schema", "print"])
        let file = try String(contentsOf: Fixtures.repositoryURL("schemas/SocialFusionTimelineConfiguration.schema.json"), encoding: .utf8)
        #expect(result.status == 0)
        #expect(result.stdout == file)
    }

    @Test("config print shows the configuration, or the resolved one")
    func configPrint() async throws {
        let plain = try await EngineProcess.run(["config", "print", "--format", "json", "config/Info.plist"])
        #expect(plain.status == 0)
        #expect(plain.stdout.hasPrefix("{\n  \"PositionPersistence\": {\n    \"Enabled\": true,"))
        #expect(!plain.stdout.contains("CFBundleIdentifier"))
        let resolved = try await EngineProcess.run(["config", "print", "--resolved", "config/SocialFusionTimelineConfiguration.plist"])
        #expect(resolved.status == 0)
        #expect(resolved.stdout.contains("<key>MaxCacheSize</key>\n\t\t<integer>500</integer>"))
        #expect(resolved.stdout.contains("<key>AnchorVisibilityThreshold</key>\n\t\t<real>0.3</real>"))
    }
}
