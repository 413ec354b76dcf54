import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// The effective `SocialFusionTimelineConfiguration`: every key resolved, missing ones from the
/// schema's defaults.
public struct TimelineConfiguration: Sendable, Equatable {
    public var positionPersistence: PositionPersistenceSettings
    public var performance: PerformanceSettings
    public var debug: DebugSettings
    public var timelineCache: TimelineCacheSettings
    public var network: NetworkSettings
    public var restoration: RestorationSettings
    public var resume: ResumeSettings
    public var sync: SyncSettings
    public var logging: LoggingSettings
    /// The plugin libraries to load, as the file lists them (`Plugins`).
    public var plugins: [String]
    /// The whole resolved configuration, for values read by key path.
    public let resolved: Value

    /// The sections, in the order the schema lists them.
    public static let sections: [any ConfigurationSection.Type] = [
        PositionPersistenceSettings.self, PerformanceSettings.self, DebugSettings.self, TimelineCacheSettings.self,
        NetworkSettings.self, RestorationSettings.self, ResumeSettings.self, SyncSettings.self, LoggingSettings.self,
    ]

    /// `Plugins`, the one key outside every section.
    public static let pluginsKey = SettingDeclaration(
        name: "Plugins",
        schema: .dictionary([
            ("title", .string("Plugins")),
            (
                "description",
                .string(
                    "Strategy plugins to load: shared libraries built against the plugin ABI (docs/PLUGINS.md), as paths absolute or relative to this file. Their strategies can then be named in the pipeline, and engine validate checks their parameters. A plugin runs in the process with the engine's rights: list only libraries you trust."
                )
            ),
            ("type", .string("array")), ("items", .dictionary([("type", .string("string")), ("minLength", .integer(1))])),
            ("default", .array([])),
        ]))

    /// The configuration of an empty file: every key at its schema default.
    public static let defaults: TimelineConfiguration = {
        let resolved = DefaultsResolver.fill(Value(.dictionary([:])), schema: ConfigurationSchema.embedded.document)
        return TimelineConfiguration(resolved: resolved, given: Value(.dictionary([:])))
    }()

    /// Every key at its declared default, read without the composed schema: what the schema
    /// composer derives defaults from, so that a changed declaration needs no second build.
    /// Keys whose type a strategy parameter declares (`InheritedSetting`) are nil here.
    public static var declaredDefaults: TimelineConfiguration {
        TimelineConfiguration(
            resolved: DefaultsResolver.fill(Value(.dictionary([:])), schema: ConfigurationSchema.declared),
            given: Value(.dictionary([:])))
    }

    /// The resolved value of the key a strategy parameter inherits, or nil.
    public func value(of key: InheritedKey) -> Value? {
        resolved[key.section]?[key.key]
    }

    /// Builds the model from a resolved (valid, defaults filled) configuration value and the
    /// file as given, which decides the keys that follow others when absent
    /// (`Restoration.Pipeline`, `TimelineCache.Policy`).
    init(resolved: Value, given: Value) {
        self.resolved = resolved
        func section<S: ConfigurationSection>(_ type: S.Type) -> S {
            S(resolved: resolved[S.name], given: given[S.name])
        }
        positionPersistence = section(PositionPersistenceSettings.self)
        performance = section(PerformanceSettings.self)
        debug = section(DebugSettings.self)
        timelineCache = section(TimelineCacheSettings.self)
        network = section(NetworkSettings.self)
        restoration = section(RestorationSettings.self)
        resume = section(ResumeSettings.self)
        sync = section(SyncSettings.self)
        logging = section(LoggingSettings.self)
        plugins = resolved[Self.pluginsKey.name]?.arrayValue?.compactMap(\.stringValue) ?? []
    }
}
