import TimelineEngineValueTree

/// `TimelineCache`: the cached timeline and the bounded histories.
public struct TimelineCacheSettings: ConfigurationSection {
    public static let name = "TimelineCache"
    public static let title = "Timeline cache"
    public static let help = "The cached timeline and the bounded histories."

    @Setting(
        "MaxCacheSize", title: "Cache size", range: 1...1_000_000,
        help: "Maximum number of cached timeline entries: the bound of the default eviction policy's LRU.")
    public var maxCacheSize: Int = 500

    /// Seconds after which a cached entry expires.
    @Setting(
        "MaxAge", title: "Cache age limit", range: 0...315_360_000,
        help: "Seconds after which a cached entry expires: the default eviction policy's TTL. The default is 7 days.")
    public var maxAge: Double = 604_800

    @Setting(
        "MaxReadPosts", title: "Read-post history", range: 0...1_000_000,
        help: "How many read post ids to remember; the newest are kept.")
    public var maxReadPosts: Int = 1000

    /// What the caches keep under memory pressure: cached posts per timeline and read ids.
    @Setting(
        "MemoryPressureFloor", title: "Memory-pressure floor", range: 0...1_000_000,
        help:
            "What the caches keep when memory use crosses Performance.MemoryWarningThreshold: this many cached posts per timeline (the most recently used) and this many read post ids (the newest); the position history keeps its newest snapshot."
    )
    public var memoryPressureFloor: Int = 100

    /// The eviction policies as written, or nil when the configuration leaves them to follow
    /// `MaxAge` and `MaxCacheSize` (TTL, then LRU).
    @DerivedComponentListSetting(
        "Policy", title: "Eviction policy", kind: "cache",
        help:
            "The cache policies that bound the cached timeline entries, applied in order, each to what the previous ones kept: TTL (MaxAge seconds), LRU (MaxEntries), SizeBounded (MaxBytes), or CacheChain with its own Stages. When absent: TTL with MaxAge, then LRU with MaxCacheSize. The position history is kept to PositionPersistence.MaxHistorySize and the read-post set to MaxReadPosts, the newest first."
    )
    public var policy: [ComponentSpec]?

    public init() {}
}
