import ValueTree

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
    /// The whole resolved configuration, for values read by key path.
    public let resolved: Value

    /// The configuration of an empty file: every key at its schema default.
    public static let defaults: TimelineConfiguration = {
        let resolved = DefaultsResolver.fill(Value(.dictionary([:])), schema: ConfigurationSchema.embedded.document)
        return TimelineConfiguration(resolved: resolved, explicitPipeline: false, explicitCachePolicy: false)
    }()

    /// The resolved value at a dotted key path (`Restoration.MinimumConfidence`), or nil.
    public func value(at keyPath: String) -> Value? {
        var current: Value? = resolved
        for key in keyPath.split(separator: ".") { current = current?[String(key)] }
        return current
    }

    /// Builds the model from a resolved (valid, defaults filled) configuration value.
    /// `explicitPipeline` and `explicitCachePolicy` say whether the file itself gave
    /// `Restoration.Pipeline` and `TimelineCache.Policy`; otherwise they follow other keys.
    init(resolved: Value, explicitPipeline: Bool, explicitCachePolicy: Bool) {
        self.resolved = resolved
        let persistence = SectionReader(resolved, "PositionPersistence")
        positionPersistence = PositionPersistenceSettings(
            enabled: persistence.bool("Enabled"),
            smartRestoration: persistence.bool("SmartRestoration"),
            maxHistorySize: persistence.int("MaxHistorySize"),
            autoSaveInterval: persistence.double("AutoSaveInterval"),
            autoSaveSettleDelay: persistence.double("AutoSaveSettleDelay"),
            crossSessionSync: persistence.bool("CrossSessionSync"),
            iCloudSyncEnabled: persistence.bool("iCloudSyncEnabled"),
            fallbackStrategy: persistence.string("FallbackStrategy"))
        let performance = SectionReader(resolved, "Performance")
        self.performance = PerformanceSettings(
            lazyLoadingEnabled: performance.bool("LazyLoadingEnabled"),
            scrollBufferSize: performance.int("ScrollBufferSize"),
            renderAheadCount: performance.int("RenderAheadCount"),
            memoryWarningThreshold: performance.double("MemoryWarningThreshold"))
        let debug = SectionReader(resolved, "Debug")
        self.debug = DebugSettings(
            timelineLogging: debug.bool("TimelineLogging"),
            positionLogging: debug.bool("PositionLogging"),
            syncLogging: debug.bool("SyncLogging"),
            cacheLogging: debug.bool("CacheLogging"),
            verboseMode: debug.bool("VerboseMode"))
        let cache = SectionReader(resolved, "TimelineCache")
        timelineCache = TimelineCacheSettings(
            maxCacheSize: cache.int("MaxCacheSize"),
            maxAge: cache.double("MaxAge"),
            maxReadPosts: cache.int("MaxReadPosts"),
            memoryPressureFloor: cache.int("MemoryPressureFloor"),
            policy: explicitCachePolicy ? cache.components("Policy", nameKey: "Strategy") : nil)
        let network = SectionReader(resolved, "Network")
        self.network = NetworkSettings(
            policy: network.component("Policy", nameKey: "Strategy"),
            requestTimeout: network.double("RequestTimeout"),
            fetchDeadline: network.double("FetchDeadline"),
            reach: network.component("Reach", nameKey: "Strategy") ?? ComponentSpec(name: network.string("Reach")))
        let restoration = SectionReader(resolved, "Restoration")
        self.restoration = RestorationSettings(
            pipeline: explicitPipeline ? restoration.components("Pipeline", nameKey: "Strategy") : nil,
            composition: restoration.string("Composition"),
            minimumConfidence: restoration.double("MinimumConfidence"),
            anchorMaxAge: restoration.double("AnchorMaxAge"),
            anchorVisibilityThreshold: restoration.double("AnchorVisibilityThreshold"))
        let resume = SectionReader(resolved, "Resume")
        self.resume = ResumeSettings(
            hardCloseThreshold: resume.double("HardCloseThreshold"),
            afterHardClose: resume.enumeration("AfterHardClose", default: .suggest),
            silentRestoreConfidence: resume.double("SilentRestoreConfidence"))
        let sync = SectionReader(resolved, "Sync")
        self.sync = SyncSettings(
            policy: sync.component("Policy", nameKey: "Strategy") ?? ComponentSpec(name: sync.string("Policy")),
            transport: sync.component("Transport", nameKey: "Strategy") ?? ComponentSpec(name: sync.string("Transport")),
            debounceInterval: sync.double("DebounceInterval"),
            samePostDeadband: sync.double("SamePostDeadband"),
            tombstoneGracePeriod: sync.double("TombstoneGracePeriod"),
            maxClockOffset: sync.double("MaxClockOffset"))
        let logging = SectionReader(resolved, "Logging")
        self.logging = LoggingSettings(sinks: logging.components("Sinks", nameKey: "Sink"))
    }
}

/// Reads typed values out of one resolved section. The resolver guarantees presence and
/// validity; a value that is somehow missing reads as zero, false or the given default.
private struct SectionReader {
    let section: Value

    init(_ configuration: Value, _ name: String) {
        section = configuration[name] ?? Value(.dictionary([:]))
    }

    func bool(_ key: String) -> Bool { section[key]?.boolValue ?? false }

    func int(_ key: String) -> Int {
        guard let value = section[key] else { return 0 }
        if let integer = value.integerValue { return integer.intValue ?? Int.max }
        return Int(exactly: value.numberValue ?? 0) ?? 0
    }

    func double(_ key: String) -> Double { section[key]?.numberValue ?? 0 }

    func string(_ key: String) -> String { section[key]?.stringValue ?? "" }

    func enumeration<E: RawRepresentable>(_ key: String, default fallback: E) -> E where E.RawValue == String {
        section[key]?.stringValue.flatMap(E.init(rawValue:)) ?? fallback
    }

    func components(_ key: String, nameKey: String) -> [ComponentSpec] {
        (section[key]?.arrayValue ?? []).compactMap { Self.component($0, nameKey: nameKey) }
    }

    func component(_ key: String, nameKey: String) -> ComponentSpec? {
        section[key].flatMap { Self.component($0, nameKey: nameKey) }
    }

    static func component(_ entry: Value, nameKey: String) -> ComponentSpec? {
        guard var members = entry.dictionaryValue, let name = members[nameKey]?.value.stringValue else { return nil }
        members.removeValue(forKey: nameKey)
        return ComponentSpec(name: name, parameters: members)
    }
}
