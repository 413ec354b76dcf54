import ValueTree

/// `PositionPersistence`: saving the reader's place and putting them back on it.
public struct PositionPersistenceSettings: Sendable, Equatable {
    public var enabled: Bool
    public var smartRestoration: Bool
    public var maxHistorySize: Int
    /// Seconds between automatic saves while scrolling.
    public var autoSaveInterval: Double
    /// Seconds scrolling must rest before the last position is saved.
    public var autoSaveSettleDelay: Double
    public var crossSessionSync: Bool
    public var iCloudSyncEnabled: Bool
    /// Where the reader goes when no better position is found: a mode of the Fallback
    /// strategy, whose declaration lists the allowed values.
    public var fallbackStrategy: String
}

/// `Performance`: rendering and memory tuning.
public struct PerformanceSettings: Sendable, Equatable {
    public var lazyLoadingEnabled: Bool
    public var scrollBufferSize: Int
    public var renderAheadCount: Int
    /// Fraction of the memory budget, 0 to 1.
    public var memoryWarningThreshold: Double
}

/// `Debug`: which log categories are detailed.
public struct DebugSettings: Sendable, Equatable {
    public var timelineLogging: Bool
    public var positionLogging: Bool
    public var syncLogging: Bool
    public var cacheLogging: Bool
    public var verboseMode: Bool
}

/// `TimelineCache`: the cached timeline and the bounded histories.
public struct TimelineCacheSettings: Sendable, Equatable {
    public var maxCacheSize: Int
    /// Seconds after which a cached entry expires.
    public var maxAge: Double
    public var maxReadPosts: Int
    /// What the caches keep under memory pressure: cached posts per timeline and read ids.
    public var memoryPressureFloor: Int
    /// The eviction policies as written, or nil when the configuration leaves them to follow
    /// `MaxAge` and `MaxCacheSize` (TTL, then LRU).
    public var policy: [ComponentSpec]?
}

/// `Network`: how timelines are refreshed from their source.
public struct NetworkSettings: Sendable, Equatable {
    /// The retry policy as written, or nil for the default.
    public var policy: ComponentSpec?
    /// Seconds one request may take.
    public var requestTimeout: Double
    /// Seconds a whole refresh may take, the reach for the reader's post included.
    public var fetchDeadline: Double
    /// How a post the cache lacks is reached, as written (a name alone reads as a spec without
    /// parameters).
    public var reach: ComponentSpec
}

/// One stage of a pipeline, or one log sink: a registered name and its parameters.
public struct ComponentSpec: Sendable, Equatable {
    /// The registered name (`ExactMatch`, `JSONLines`, …).
    public var name: String
    /// Every other key of the stage's dictionary.
    public var parameters: Value.Dictionary

    public init(name: String, parameters: Value.Dictionary = [:]) {
        self.name = name
        self.parameters = parameters
    }
}

/// `Restoration`: how the restoration pipeline is composed.
public struct RestorationSettings: Sendable, Equatable {
    /// The stages as written, or nil when the configuration leaves the pipeline to follow
    /// `PositionPersistence`.
    public var pipeline: [ComponentSpec]?
    /// The registered composition that combines the stages.
    public var composition: String
    public var minimumConfidence: Double
    /// Seconds in the background after which the live anchor expires.
    public var anchorMaxAge: Double
    public var anchorVisibilityThreshold: Double
}

/// `Resume`: soft and hard closes.
public struct ResumeSettings: Sendable, Equatable {
    public enum AfterHardClose: String, CaseIterable, Sendable {
        /// Offer "Continue reading?" and restore silently only at `SilentRestoreConfidence`.
        case suggest = "Suggest"
        /// Restore silently anyway.
        case restore = "Restore"
        /// Start at the top.
        case topOfTimeline = "TopOfTimeline"
    }

    /// Seconds in the background after which a return is a hard close.
    public var hardCloseThreshold: Double
    public var afterHardClose: AfterHardClose
    public var silentRestoreConfidence: Double
}

/// `Sync`: carrying the position across devices.
public struct SyncSettings: Sendable, Equatable {
    /// The merge policy, as written (a name alone reads as a spec without parameters).
    public var policy: ComponentSpec
    /// The transport, as written.
    public var transport: ComponentSpec
    /// Seconds to wait after a local change before a round.
    public var debounceInterval: Double
    /// Seconds within which a remote position on the same post does not move the reader.
    public var samePostDeadband: Double
    /// Seconds a tombstone is kept.
    public var tombstoneGracePeriod: Double
    /// Seconds another device's clock may be ahead of this one's and still move it.
    public var maxClockOffset: Double
}

/// `Logging`: where log records go.
public struct LoggingSettings: Sendable, Equatable {
    public var sinks: [ComponentSpec]

    public init(sinks: [ComponentSpec]) {
        self.sinks = sinks
    }
}
