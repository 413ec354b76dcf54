import TimelineEngineValueTree

/// `Debug`: which log categories are detailed.
public struct DebugSettings: ConfigurationSection {
    public static let name = "Debug"
    public static let title = "Debug and logging levels"
    public static let help = "Which log categories are detailed. Levels apply to the swift-log categories timeline, position, sync and cache."

    @Setting(
        "TimelineLogging", title: "Timeline logging",
        help: "Log timeline loading: configuration diagnostics, requests and their retries (category timeline) at debug level.")
    public var timelineLogging: Bool = false

    @Setting(
        "PositionLogging", title: "Position logging",
        help: "Log position saves and restorations (category position) at debug level.")
    public var positionLogging: Bool = false

    @Setting(
        "SyncLogging", title: "Sync logging",
        help: "Log sync rounds, the registers they move and the change stream (category sync) at debug level.")
    public var syncLogging: Bool = false

    @Setting(
        "CacheLogging", title: "Cache logging",
        help: "Log cache evictions and store migrations (category cache) at debug level.")
    public var cacheLogging: Bool = false

    @Setting(
        "VerboseMode", title: "Verbose mode",
        help: "Log everything, at trace level, in every category.")
    public var verboseMode: Bool = false

    public init() {}
}
