import TimelineEngineCacheChain
import TimelineEngineConfiguration
import TimelineEngineContentSimilarity
import TimelineEngineExactMatch
import TimelineEngineFallback
import TimelineEngineICloudKeyValueStore
import TimelineEngineLRU
import TimelineEngineNeighborAnchor
import TimelineEngineNone
import TimelineEngineStrategyKit
import TimelineEngineTTL
import TimelineEngineTemporalProximity
import TimelineEngineValueTree
import TimelineEngineViewportAnchor

/// What the configuration chooses where a key follows others (the pipeline, the cache policies)
/// or a component is chosen by more than one key (the transport). A key's own default is its
/// declaration's (`NetworkSettings.policy`); the builders take these like any configured spec,
/// through the registry.
public enum DefaultComponents {
    /// The similarity above which the default pipeline takes a text for a re-draft of the saved one.
    public static let redraftThreshold = 0.8

    /// The positioning stage when a pipeline names none.
    public static let positioning = ViewportAnchorStrategy.type.name

    /// The restoration stages when `Restoration.Pipeline` is absent, as `PositionPersistence`
    /// decides: `ExactMatch > ContentSimilarity(Threshold: 0.8) > NeighborAnchor >
    /// TemporalProximity > ContentSimilarity > Fallback`; only `ExactMatch > Fallback` when
    /// `SmartRestoration` is false; `Fallback(Mode: TopOfTimeline)` when `Enabled` is false. The
    /// Fallback takes its Mode from `PositionPersistence.FallbackStrategy`.
    public static func pipeline(for configuration: TimelineConfiguration) -> [ComponentSpec] {
        let persistence = configuration.positionPersistence
        let exactMatch = ComponentSpec(name: ExactMatchStrategy.type.name)
        let fallback = ComponentSpec(name: FallbackStrategy.type.name)
        if !persistence.enabled {
            return [spec(FallbackStrategy.type, FallbackStrategy.modeParameter, FallbackStrategy.Mode.topOfTimeline)]
        }
        if !persistence.smartRestoration {
            return [exactMatch, fallback]
        }
        // A near-identical text is a re-draft, found before the neighbours because a re-draft's
        // old neighbours are still there. On simulated sessions this order puts the reader within
        // one post 95 % of the time, against 88 % with the seed's order (docs/SIMULATION.md).
        let redraft = spec(ContentSimilarityStrategy.type, ContentSimilarityStrategy.thresholdParameter, redraftThreshold)
        return [exactMatch, redraft]
            + [NeighborAnchorStrategy.type, TemporalProximityStrategy.type, ContentSimilarityStrategy.type].map { ComponentSpec(name: $0.name) }
            + [fallback]
    }

    /// `type` with `value` for `parameter`, which is one of its own.
    static func spec<T: ParameterValue>(_ type: StrategyType, _ parameter: Parameter<T>, _ value: T) -> ComponentSpec {
        ComponentSpec(name: type.name, parameters: [Value.Key(parameter.name): Value.Member(value: value.schemaValue)])
    }

    /// The transport when sync is off (`PositionPersistence.CrossSessionSync` false).
    public static let noTransport = ComponentSpec(name: NoneTransport.type.name)

    /// The transport `PositionPersistence.iCloudSyncEnabled` selects when `Sync.Transport` is
    /// None and the platform has iCloud's key-value store.
    public static let iCloudTransport = ComponentSpec(name: ICloudKeyValueStoreTransport.type.name)

    /// How a post the cache lacks is reached when `Network.Reach` is absent: the key's declared
    /// default.
    public static let reach = NetworkSettings().reach

    /// The cached timelines' policies when `TimelineCache.Policy` is absent: `TTL(MaxAge:
    /// TimelineCache.MaxAge)`, then `LRU(MaxEntries: TimelineCache.MaxCacheSize)`.
    public static func timelineCache(for configuration: TimelineConfiguration) -> [ComponentSpec] {
        let settings = configuration.timelineCache
        return [
            spec(TTLPolicy.type, TTLPolicy.maxAgeParameter, settings.maxAge),
            keeping(settings.maxCacheSize),
        ]
    }

    /// The position history's policy: the `PositionPersistence.MaxHistorySize` most recently
    /// saved snapshots stay.
    public static func history(for configuration: TimelineConfiguration) -> ComponentSpec {
        keeping(configuration.positionPersistence.maxHistorySize)
    }

    /// The read-post ids' policy: the `TimelineCache.MaxReadPosts` newest reads stay.
    public static func readPosts(for configuration: TimelineConfiguration) -> ComponentSpec {
        keeping(configuration.timelineCache.maxReadPosts)
    }

    /// The policy that keeps the `count` most recently used entries.
    public static func keeping(_ count: Int) -> ComponentSpec {
        spec(LRUPolicy.type, LRUPolicy.maxEntriesParameter, count)
    }

    /// `specs` applied in order, each to what the previous ones kept.
    public static func chain(_ specs: [ComponentSpec]) -> ComponentSpec {
        if specs.count == 1 { return specs[0] }
        let stages = specs.map { spec -> Value in
            .dictionary([("Strategy", .string(spec.name))] + spec.parameters.map { ($0.key.string, $0.value.value) })
        }
        return ComponentSpec(name: CacheChainPolicy.type.name, parameters: [Value.Key(ComponentSpec.stagesKey): Value.Member(value: .array(stages))])
    }
}
