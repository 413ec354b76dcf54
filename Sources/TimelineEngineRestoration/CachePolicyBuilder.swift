import TimelineEngineCacheModel
import TimelineEngineConfiguration
import TimelineEngineValueTree

/// Builds the cache policies the configuration chooses, through the registry.
///
/// - Cached timeline entries: `TimelineCache.Policy` as written, or by default
///   `DefaultComponents.timelineCache` (TTL, then LRU).
/// - Position history: `DefaultComponents.history`, so the most recently saved snapshots stay.
/// - Read-post ids: `DefaultComponents.readPosts`, so the newest reads stay.
/// - Under memory pressure, each shrinks further to its floor (`memoryPressureFloors()`).
public struct CachePolicyBuilder: Sendable {
    public let registry: StrategyRegistry
    public let configuration: TimelineConfiguration

    public init(registry: StrategyRegistry = BuiltInStrategies.registry, configuration: TimelineConfiguration = .defaults) {
        self.registry = registry
        self.configuration = configuration
    }

    /// The policy for cached timeline entries.
    public func timelineCache() throws(PipelineError) -> any CachePolicy {
        try policy(timelineCacheSpec)
    }

    /// The policy for the position history.
    public func history() throws(PipelineError) -> any CachePolicy {
        try policy(DefaultComponents.history(for: configuration))
    }

    /// The policy for the read-post ids.
    public func readPosts() throws(PipelineError) -> any CachePolicy {
        try policy(DefaultComponents.readPosts(for: configuration))
    }

    /// What `performMaintenance` applies: the regular bounds, or under memory pressure the
    /// floors.
    public struct MaintenancePolicies: Sendable {
        public var timeline: any CachePolicy
        public var history: any CachePolicy
        public var readPosts: any CachePolicy
        /// True when `memoryUse` reached `Performance.MemoryWarningThreshold`.
        public var underMemoryPressure: Bool
    }

    /// The policies for one maintenance pass. `memoryUse` is the fraction of memory in use
    /// (0…1) as the app measures it; at or above `Performance.MemoryWarningThreshold` the caches
    /// shrink to their floors, which first apply the regular policies and then the floor bound.
    public func maintenancePolicies(memoryUse: Double? = nil) throws(PipelineError) -> MaintenancePolicies {
        let regular = (
            timeline: timelineCacheSpec, history: DefaultComponents.history(for: configuration),
            readPosts: DefaultComponents.readPosts(for: configuration)
        )
        guard let memoryUse, memoryUse >= configuration.performance.memoryWarningThreshold else {
            return MaintenancePolicies(
                timeline: try policy(regular.timeline), history: try policy(regular.history),
                readPosts: try policy(regular.readPosts), underMemoryPressure: false)
        }
        let floors = memoryPressureFloorSpecs
        return MaintenancePolicies(
            timeline: try policy(DefaultComponents.chain([regular.timeline, floors.timeline])),
            history: try policy(DefaultComponents.chain([regular.history, floors.history])),
            readPosts: try policy(DefaultComponents.chain([regular.readPosts, floors.readPosts])),
            underMemoryPressure: true)
    }

    /// The policies that apply under memory pressure (`Performance.MemoryWarningThreshold`
    /// crossed): cached posts and read ids keep `TimelineCache.MemoryPressureFloor` entries, the
    /// most recently used; the history keeps its newest snapshot.
    public func memoryPressureFloors() throws(PipelineError) -> (timeline: any CachePolicy, history: any CachePolicy, readPosts: any CachePolicy) {
        let floors = memoryPressureFloorSpecs
        return (try policy(floors.timeline), try policy(floors.history), try policy(floors.readPosts))
    }

    private var memoryPressureFloorSpecs: (timeline: ComponentSpec, history: ComponentSpec, readPosts: ComponentSpec) {
        let floor = configuration.timelineCache.memoryPressureFloor
        return (DefaultComponents.keeping(floor), DefaultComponents.keeping(1), DefaultComponents.keeping(floor))
    }

    /// The configured timeline cache policies as one spec (a chain when there are several).
    private var timelineCacheSpec: ComponentSpec {
        DefaultComponents.chain(configuration.timelineCache.policy ?? DefaultComponents.timelineCache(for: configuration))
    }

    /// The cache policy a spec names.
    public func policy(_ spec: ComponentSpec) throws(PipelineError) -> any CachePolicy {
        try registry.cachePolicy(spec)
    }
}
