import Foundation
import Testing
import TimelineEngineConfiguration
import TimelineEngineLogging
import TimelineEnginePropertyList
import TimelineEngineTestSupport
import TimelineEngineValueTree

@Suite("Configuration loading and diagnostics", .timeLimit(.minutes(10)))
struct ConfigurationLoaderTests {
    static func plist(_ body: String) -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
            \(body)
            </dict>
            </plist>
            """.utf8)
    }

    static func diagnostics(_ data: Data, file: String = "config.plist") -> [String] {
        ConfigurationLoader().read(data: data, fileName: file).diagnostics.map(\.description)
    }

    @Test(
        "the seed's configuration block, exactly as printed, validates with no errors; its three rendering keys, read by nothing, are deprecated"
    )
    func seedBlock() throws {
        let seed = try String(contentsOf: Fixtures.url("seeds/000_904a4d7675e9a731.txt"), encoding: .utf8)
        let start = try #require(seed.range(of: "```xml\n"))
        let end = try #require(seed.range(of: "```", range: start.upperBound..<seed.endIndex))
        let block = String(seed[start.upperBound..<end.lowerBound])
        let document = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n\(block)</dict>\n</plist>\n"
        let loaded = ConfigurationLoader().read(data: Data(document.utf8), fileName: "seed.plist")
        #expect(loaded.diagnostics.allSatisfy { $0.severity == .warning }, "\(loaded.diagnostics)")
        #expect(
            loaded.diagnostics.map { $0.path?.description } == [
                "Performance.LazyLoadingEnabled", "Performance.ScrollBufferSize", "Performance.RenderAheadCount",
            ],
            "\(loaded.diagnostics)")
        #expect(loaded.configuration.positionPersistence.fallbackStrategy == "NearestContent")
        #expect(loaded.configuration.debug.timelineLogging)
        #expect(loaded.configuration.performance.memoryWarningThreshold == 0.8)
    }

    @Test("every file in config/ validates cleanly")
    func bundledConfigurations() throws {
        let folder = Fixtures.repositoryURL("config")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names.count == 4)
        for name in names {
            let loaded = ConfigurationLoader().read(contentsOf: folder.appendingPathComponent(name), displayName: name)
            #expect(loaded.diagnostics.isEmpty, "\(name): \(loaded.diagnostics)")
        }
    }

    @Test("unknown key, with did-you-mean and the valid keys")
    func unknownKey() {
        let data = Self.plist(
            """
                <key>PositionPersistence</key>
                <dict>
                    <key>FallbackStratgy</key>
                    <string>TopOfTimeline</string>
                </dict>
            """)
        #expect(
            Self.diagnostics(data) == [
                "config.plist:6:9: error: PositionPersistence.FallbackStratgy: unknown key \"FallbackStratgy\"; did you mean \"FallbackStrategy\"? Valid keys: Enabled, SmartRestoration, MaxHistorySize, AutoSaveInterval, AutoSaveSettleDelay, CrossSessionSync, iCloudSyncEnabled, FallbackStrategy"
            ])
    }

    @Test("wrong type says what was expected and what was found")
    func wrongType() {
        let data = Self.plist(
            """
                <key>PositionPersistence</key>
                <dict>
                    <key>MaxHistorySize</key>
                    <string>5</string>
                </dict>
            """)
        #expect(
            Self.diagnostics(data) == [
                "config.plist:7:9: error: PositionPersistence.MaxHistorySize: expected integer, found string \"5\""
            ])
    }

    @Test("out-of-range values name the bounds")
    func outOfRange() {
        let data = Self.plist(
            """
                <key>Performance</key>
                <dict>
                    <key>MemoryWarningThreshold</key>
                    <real>1.5</real>
                </dict>
                <key>PositionPersistence</key>
                <dict>
                    <key>MaxHistorySize</key>
                    <integer>-1</integer>
                </dict>
            """)
        #expect(
            Self.diagnostics(data) == [
                "config.plist:7:9: error: Performance.MemoryWarningThreshold: 1.5 is greater than the maximum 1 (allowed: ≥ 0 and ≤ 1)",
                "config.plist:12:9: error: PositionPersistence.MaxHistorySize: -1 is less than the minimum 1 (allowed: ≥ 1 and ≤ 1000)",
            ])
    }

    @Test("a key read by nothing is deprecated: a warning names it and says why")
    func deprecatedRenderingKeys() {
        let data = Self.plist(
            """
                <key>Performance</key>
                <dict>
                    <key>ScrollBufferSize</key>
                    <integer>30</integer>
                </dict>
            """)
        #expect(
            Self.diagnostics(data) == [
                "config.plist:6:9: warning: Performance.ScrollBufferSize: key \"ScrollBufferSize\" is deprecated: Read by nothing: the engine lays out no views, and an app's own list decides how many posts it keeps loaded. Accepted so that older files stay valid; remove it."
            ])
    }

    @Test("invalid enum values list the allowed ones and suggest the closest")
    func invalidEnum() {
        let data = Self.plist(
            """
                <key>PositionPersistence</key>
                <dict>
                    <key>FallbackStrategy</key>
                    <string>NewestPosts</string>
                </dict>
            """)
        #expect(
            Self.diagnostics(data) == [
                "config.plist:7:9: error: PositionPersistence.FallbackStrategy: \"NewestPosts\" is not one of the allowed values: \"NearestContent\", \"TopOfTimeline\", \"LastKnownPosition\", \"NewestPost\", \"OldestPost\"; did you mean \"NewestPost\"?"
            ])
    }

    @Test("deprecated keys are warnings")
    func deprecated() {
        let data = Self.plist(
            """
                <key>PositionPersistence</key>
                <dict>
                    <key>MaxUnreadHistory</key>
                    <integer>200</integer>
                </dict>
            """)
        let loaded = ConfigurationLoader().read(data: data, fileName: "config.plist")
        #expect(loaded.isValid)
        #expect(
            loaded.diagnostics.map(\.description) == [
                "config.plist:6:9: warning: PositionPersistence.MaxUnreadHistory: key \"MaxUnreadHistory\" is deprecated: The seed app's bound on remembered read posts. Use TimelineCache.MaxReadPosts instead."
            ])
    }

    @Test("malformed XML carries libxml2's message and the line")
    func malformedXML() {
        let data = Data("<plist>\n<dict>\n<key>Debug</key>\n<dict>\n</array>\n</dict>\n</plist>".utf8)
        #expect(Self.diagnostics(data) == ["config.plist:5:9: error: Opening and ending tag mismatch: dict line 4 and array"])
    }

    @Test("malformed JSON carries the line and column")
    func malformedJSON() {
        let data = Data("{\n  \"Debug\": {\n    \"VerboseMode\": true,\n  }\n}\n".utf8)
        #expect(Self.diagnostics(data, file: "config.json") == ["config.json:4:3: error: trailing comma before '}'"])
    }

    @Test("JSON diagnostics carry lines too")
    func jsonSchemaErrors() {
        let data = Data("{\n  \"Debug\": {\n    \"VerboseMode\": \"yes\"\n  }\n}\n".utf8)
        #expect(
            Self.diagnostics(data, file: "config.json") == [
                "config.json:3:20: error: Debug.VerboseMode: expected boolean, found string \"yes\""
            ])
    }

    @Test("all problems are reported, in file order")
    func allProblems() {
        let data = Self.plist(
            """
                <key>Debug</key>
                <dict>
                    <key>VerboseMode</key>
                    <integer>1</integer>
                </dict>
                <key>Sync</key>
                <dict>
                    <key>Transport</key>
                    <string>Carrier pigeon</string>
                </dict>
                <key>Extra</key>
                <true/>
            """)
        let diagnostics = Self.diagnostics(data)
        #expect(diagnostics.count == 3)
        #expect(diagnostics.map { $0.split(separator: ":")[1] } == ["7", "12", "14"])
    }

    @Test("an Info.plist holds the configuration among other keys, which are ignored")
    func infoPlist() {
        let data = Self.plist(
            """
                <key>CFBundleIdentifier</key>
                <string>com.example.app</string>
                <key>SocialFusionTimelineConfiguration</key>
                <dict>
                    <key>PositionPersistence</key>
                    <dict>
                        <key>FallbackStrategy</key>
                        <string>OldestPost</string>
                    </dict>
                </dict>
            """)
        let loaded = ConfigurationLoader().read(data: data)
        #expect(loaded.diagnostics.isEmpty)
        #expect(loaded.configuration.positionPersistence.fallbackStrategy == "OldestPost")
    }

    @Test("an Info.plist without the configuration gets one clear error")
    func infoPlistWithoutConfiguration() {
        let data = Self.plist(
            """
                <key>CFBundleIdentifier</key>
                <string>com.example.app</string>
            """)
        #expect(
            Self.diagnostics(data, file: "Info.plist") == [
                "Info.plist:3:1: error: no SocialFusionTimelineConfiguration key and none of the configuration's sections (PositionPersistence, Performance, Debug, TimelineCache, Network, Restoration, Resume, Sync, Logging, Plugins)"
            ])
    }

    @Test("missing keys take the schema's defaults")
    func defaults() {
        let configuration = ConfigurationLoader().read(data: Self.plist("")).configuration
        #expect(configuration == TimelineConfiguration.defaults)
        #expect(configuration.positionPersistence.maxHistorySize == 10)
        #expect(configuration.positionPersistence.autoSaveInterval == 5)
        #expect(configuration.positionPersistence.fallbackStrategy == "NearestContent")
        #expect(configuration.timelineCache.maxCacheSize == 500)
        #expect(configuration.restoration.anchorMaxAge == 30)
        #expect(configuration.restoration.anchorVisibilityThreshold == 0.3)
        #expect(configuration.restoration.pipeline == nil)
        #expect(configuration.resume.hardCloseThreshold == 30)
        #expect(configuration.logging.sinks == [ComponentSpec(name: "Stderr")])
    }

    @Test("lenient loading: an invalid value falls back to its default, the rest is kept")
    func lenientFallback() throws {
        let data = Self.plist(
            """
                <key>PositionPersistence</key>
                <dict>
                    <key>MaxHistorySize</key>
                    <string>5</string>
                    <key>FallbackStrategy</key>
                    <string>TopOfTimeline</string>
                </dict>
                <key>Restoration</key>
                <dict>
                    <key>Pipeline</key>
                    <array>
                        <dict><key>Strategy</key><string>ExactMatch</string></dict>
                        <dict><key>Window</key><integer>5</integer></dict>
                    </array>
                </dict>
            """)
        let sink = MemorySink()
        let logger = TimelineLogging.logger(.timeline, levels: LogLevels(), sinks: [sink])
        let loaded = try ConfigurationLoader(logger: logger).load(data: data, fileName: "config.plist")
        #expect(sink.messages == ["invalid configuration value; its default is used", "invalid configuration value; its default is used"])
        #expect(
            sink.metadata == [
                [
                    "file": "config.plist", "line": "7", "column": "9", "keyPath": "PositionPersistence.MaxHistorySize", "severity": "error",
                    "problem": "expected integer, found string \"5\"",
                ],
                [
                    "file": "config.plist", "line": "16", "column": "13", "keyPath": "Restoration.Pipeline[1]", "severity": "error",
                    "problem": "missing required key \"Strategy\"",
                ],
            ])
        #expect(loaded.errors.count == 2)
        #expect(loaded.configuration.positionPersistence.maxHistorySize == 10)
        #expect(loaded.configuration.positionPersistence.fallbackStrategy == "TopOfTimeline")
        #expect(loaded.configuration.restoration.pipeline == nil)
        #expect(loaded.resolved["PositionPersistence"]?["MaxHistorySize"] == .integer(10))
    }

    @Test("lenient loading of a broken file gives the defaults")
    func brokenFile() throws {
        let sink = MemorySink()
        let logger = TimelineLogging.logger(.timeline, levels: LogLevels(), sinks: [sink])
        let loaded = try ConfigurationLoader(logger: logger).load(data: Data("<plist><dict>".utf8), fileName: "x.plist")
        #expect(sink.messages == ["unusable configuration; the defaults are used"])
        #expect(
            sink.metadata == [
                [
                    "file": "x.plist", "line": "1", "column": "14", "severity": "error",
                    "problem": "unexpected end of the document: <dict> opened at line 1 is not closed",
                ]
            ])
        #expect(loaded.configuration == .defaults)
        #expect(loaded.errors.first?.kind == .malformed)
    }

    @Test("strict mode throws with every diagnostic")
    func strictMode() {
        let data = Self.plist("<key>Debug</key><string>on</string>")
        let error = #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader(mode: .strict).load(data: data, fileName: "config.plist")
        }
        #expect(error?.description == "config.plist:4:17: error: Debug: expected dictionary, found string \"on\"")
    }

    @Test("an explicit pipeline is kept with its parameters")
    func pipeline() throws {
        let json = Data(
            """
            {"Restoration": {"Pipeline": [{"Strategy": "ExactMatch"}, {"Strategy": "TemporalProximity", "Window": 1800}],
             "Composition": "BestConfidence"}}
            """.utf8)
        let configuration = ConfigurationLoader().read(data: json).configuration
        #expect(configuration.restoration.pipeline?.map(\.name) == ["ExactMatch", "TemporalProximity"])
        #expect(configuration.restoration.pipeline?[1].parameters["Window"]?.value == .integer(1800))
        #expect(configuration.restoration.composition == "BestConfidence")
    }

    @Test("an unreadable file is reported as such")
    func unreadable() {
        let loaded = ConfigurationLoader().read(contentsOf: URL(fileURLWithPath: "/nonexistent/config.plist"), displayName: "config.plist")
        #expect(loaded.diagnostics.map(\.description) == ["config.plist: error: cannot read file: No such file or directory"])
        #expect(loaded.diagnostics.first?.kind == .unreadable)
    }

    @Test("a file over the reader's size limit is refused before it is read, with its size")
    func oversized() throws {
        let url = try Fixtures.temporaryDirectory().appendingPathComponent("config.plist")
        try Data(repeating: UInt8(ascii: " "), count: 2_000).write(to: url)
        let loader = ConfigurationLoader(reader: PropertyListReader(maximumInputSize: 1_999))
        let loaded = loader.read(contentsOf: url, displayName: "config.plist")
        #expect(loaded.diagnostics.map(\.description) == ["config.plist: error: file is 2000 bytes, more than the limit of 1999 bytes"])
        #expect(loaded.diagnostics.first?.kind == .unreadable)
        #expect(ConfigurationLoader(reader: PropertyListReader(maximumInputSize: 2_000)).read(contentsOf: url).diagnostics.first?.kind != .unreadable)
    }
}

@Suite("Configuration to logging", .timeLimit(.minutes(10)))
struct ConfigurationLoggingTests {
    @Test("the Debug section sets the log levels and Logging.Sinks creates the sinks")
    func logging() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("engine.jsonl").path
        let json = Data(
            """
            {"Debug": {"PositionLogging": true},
             "Logging": {"Sinks": [{"Sink": "Stderr"}, {"Sink": "JSONLines", "Path": "\(path)"}]}}
            """.utf8)
        let loaded = ConfigurationLoader().read(data: json)
        #expect(loaded.diagnostics.isEmpty)
        let configuration = loaded.configuration
        #expect(configuration.debug.logLevels[.position] == .debug)
        #expect(configuration.debug.logLevels[.timeline] == .notice)
        // Each category has its flag; VerboseMode logs everything.
        for (flag, category) in [
            ("TimelineLogging", LogCategory.timeline), ("PositionLogging", .position), ("SyncLogging", .sync), ("CacheLogging", .cache),
        ] {
            let levels = ConfigurationLoader().read(data: Data(#"{"Debug": {"\#(flag)": true}}"#.utf8)).configuration.debug.logLevels
            #expect(LogCategory.allCases.map { levels[$0] } == LogCategory.allCases.map { $0 == category ? .debug : .notice }, "\(flag)")
        }
        let verbose = ConfigurationLoader().read(data: Data(#"{"Debug": {"VerboseMode": true, "SyncLogging": false}}"#.utf8)).configuration
        #expect(LogCategory.allCases.allSatisfy { verbose.debug.logLevels[$0] == .trace })
        let (sinks, errors) = configuration.logging.makeSinks()
        #expect(sinks.count == 2)
        #expect(errors.isEmpty)
        let unknown = LoggingSettings(sinks: [ComponentSpec(name: "Syslog")]).makeSinks()
        #expect(unknown.errors == ["unknown log sink \"Syslog\"; available: Stderr, JSONLines"])
    }
}

/// Keeps logged messages in memory.
// @unchecked: `stored` is read and written under `lock` only.
final class MemorySink: LogSink, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [LogRecord] = []

    var messages: [String] {
        lock.lock()
        defer { lock.unlock() }
        return stored.map(\.message)
    }

    var metadata: [[String: String]] {
        lock.lock()
        defer { lock.unlock() }
        return stored.map(\.metadata)
    }

    func write(_ record: LogRecord) {
        lock.lock()
        stored.append(record)
        lock.unlock()
    }

    // A document this deep is validated on a thread with a large stack while this one waits,
    // a tenth of a second.
    @Test("compositions nested deeper than 64 levels are an error at their line, and the pipeline falls back to the default")
    func deepCompositions() {
        func nested(_ levels: Int) -> String {
            var stage = #"{"Strategy": "ExactMatch"}"#
            for _ in 0..<levels { stage = #"{"Strategy": "BestConfidence", "Stages": ["# + stage + "]}" }
            return #"{"Restoration": {"Pipeline": ["# + stage + "]}}"
        }
        #expect(ConfigurationLoader().read(data: Data(nested(63).utf8), fileName: "ok.json").diagnostics.isEmpty)
        let loaded = ConfigurationLoader().read(data: Data(nested(100).utf8), fileName: "deep.json")
        #expect(loaded.diagnostics.count == 1)
        let diagnostic = loaded.diagnostics.first
        #expect(diagnostic?.message == "compositions nest deeper than 64 levels")
        #expect(diagnostic?.location == SourceLocation(line: 1, column: 2718))
        #expect(diagnostic?.path?.description == "Restoration.Pipeline" + String(repeating: "[0].Stages", count: 64))
        #expect(loaded.configuration.restoration.pipeline == nil)
    }
}
