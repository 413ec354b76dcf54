import Foundation
import Testing
import TimelineEngineConfiguration
import TimelineEngineValueTree

@Suite("Configuration keys declared once", .timeLimit(.minutes(10)))
struct SettingDeclarationTests {
    static func load(_ json: String) -> LoadedConfiguration {
        ConfigurationLoader().read(data: Data("{\"SocialFusionTimelineConfiguration\": \(json)}".utf8), fileName: "config.json")
    }

    @Test("every section declares each of its keys once, and the declarations are the schema's sections and keys")
    func declarationsAreTheSchema() throws {
        let schemaSections = try #require(ConfigurationSchema.embedded.document["properties"]?.dictionaryValue)
        let declared = TimelineConfiguration.sections.map { $0.name } + [TimelineConfiguration.pluginsKey.name]
        #expect(schemaSections.keys.map(\.string) == declared)
        for section in TimelineConfiguration.sections {
            let names = section.declarations.map(\.name)
            #expect(Set(names).count == names.count, "\(section.name) declares a key twice")
            let keys = schemaSections[Value.Key(section.name)]?.value["properties"]?.dictionaryValue?.keys.map(\.string)
            #expect(keys == names, "\(section.name)")
        }
    }

    @Test("the declared defaults are the defaults a file without the key gets")
    func declaredDefaultsAreTheResolvedOnes() {
        let declared = TimelineConfiguration.declaredDefaults
        let resolved = TimelineConfiguration.defaults
        #expect(declared.performance == resolved.performance)
        #expect(declared.debug == resolved.debug)
        #expect(declared.timelineCache == resolved.timelineCache)
        #expect(declared.network == resolved.network)
        #expect(declared.resume == resolved.resume)
        #expect(declared.sync == resolved.sync)
        #expect(declared.logging == resolved.logging)
        #expect(declared.plugins == resolved.plugins)
        // The keys whose type and default a strategy parameter declares come with the composed schema.
        #expect(declared.restoration.minimumConfidence == nil)
        #expect(resolved.restoration.minimumConfidence == 0.5)
        #expect(declared.positionPersistence.fallbackStrategy == nil)
        #expect(resolved.positionPersistence.fallbackStrategy == "NearestContent")
        var restoration = resolved.restoration
        restoration.minimumConfidence = nil
        #expect(declared.restoration == restoration)
        var persistence = resolved.positionPersistence
        persistence.fallbackStrategy = nil
        #expect(declared.positionPersistence == persistence)
    }

    @Test("a section's defaults, made without a file, are its declarations' defaults")
    func sectionDefaults() {
        #expect(SyncSettings().maxClockOffset == 300)
        #expect(SyncSettings().policy == ComponentSpec(name: "CausalFurthest"))
        #expect(NetworkSettings().policy == ComponentSpec(name: "NoRetry"))
        #expect(NetworkSettings().reach == ComponentSpec(name: "PostWindow"))
        #expect(LoggingSettings().sinks == [ComponentSpec(name: "Stderr")])
        #expect(RestorationSettings().pipeline == nil)
        #expect(ResumeSettings().afterHardClose == .suggest)
    }

    @Test("each key a file gives is read through its declaration with its type")
    func typedReading() {
        let loaded = Self.load(
            """
            {"Sync": {"MaxClockOffset": 60, "Policy": {"Strategy": "FurthestRead"}, "Transport": {"Strategy": "Directory", "Path": "/tmp/sync"}},
             "Resume": {"AfterHardClose": "Restore"}, "Network": {"Reach": {"Strategy": "TopPages", "MaxPages": 3}},
             "TimelineCache": {"MaxCacheSize": 20}, "Restoration": {"Pipeline": [{"Strategy": "ExactMatch"}]},
             "Logging": {"Sinks": [{"Sink": "JSONLines", "Path": "/tmp/engine.jsonl"}]}, "Plugins": ["libTop.so"]}
            """)
        let configuration = loaded.configuration
        #expect(configuration.sync.maxClockOffset == 60)
        #expect(configuration.sync.policy == ComponentSpec(name: "FurthestRead"))
        #expect(configuration.sync.transport == ComponentSpec(name: "Directory", parameters: ["Path": Value.Member(value: .string("/tmp/sync"))]))
        #expect(configuration.resume.afterHardClose == .restore)
        #expect(configuration.network.reach == ComponentSpec(name: "TopPages", parameters: ["MaxPages": Value.Member(value: .integer(3))]))
        #expect(configuration.timelineCache.maxCacheSize == 20)
        #expect(configuration.timelineCache.policy == nil, "a list that follows other keys stays nil unless the file gives it")
        #expect(configuration.restoration.pipeline == [ComponentSpec(name: "ExactMatch")])
        #expect(
            configuration.logging.sinks == [ComponentSpec(name: "JSONLines", parameters: ["Path": Value.Member(value: .string("/tmp/engine.jsonl"))])]
        )
        #expect(configuration.plugins == ["libTop.so"])
        // Keys the file leaves out keep their declared defaults.
        #expect(configuration.sync.debounceInterval == SyncSettings().debounceInterval)
        #expect(configuration.network.policy == NetworkSettings().policy)
    }

    @Test("a value of the wrong type is an error naming the key, and the key keeps its declared default")
    func wrongType() {
        let loaded = Self.load(#"{"Sync": {"MaxClockOffset": "five minutes"}}"#)
        #expect(
            loaded.diagnostics.map(\.description) == [
                #"config.json:1:67: error: Sync.MaxClockOffset: expected number, found string "five minutes""#
            ])
        #expect(loaded.configuration.sync.maxClockOffset == 300)
    }
}
