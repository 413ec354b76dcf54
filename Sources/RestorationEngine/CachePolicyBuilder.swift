import CacheChain
import Configuration
import JSONSchema
import LRU
import StrategyKit
import TTL
import ValueTree

/// Builds the cache policies the configuration chooses, through the registry.
///
/// - Cached timeline entries: `TimelineCache.Policy` as written, or by default `TTL(MaxAge:
///   TimelineCache.MaxAge)` then `LRU(MaxEntries: TimelineCache.MaxCacheSize)`.
/// - Position history: `LRU(MaxEntries: PositionPersistence.MaxHistorySize)`, so the most
///   recently saved snapshots stay.
/// - Read-post ids: `LRU(MaxEntries: TimelineCache.MaxReadPosts)`, so the newest reads stay.
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
        let settings = configuration.timelineCache
        guard let specs = settings.policy else {
            return CacheChainPolicy([TTLPolicy(maxAge: settings.maxAge), LRUPolicy(maxEntries: settings.maxCacheSize)])
        }
        let pipelineBuilder = PipelineBuilder(registry: registry, configuration: configuration)
        var policies: [any CachePolicy] = []
        for spec in specs { policies.append(try policy(pipelineBuilder.node(from: spec), using: pipelineBuilder)) }
        return policies.count == 1 ? policies[0] : CacheChainPolicy(policies)
    }

    /// The policy for the position history.
    public func history() -> any CachePolicy {
        LRUPolicy(maxEntries: configuration.positionPersistence.maxHistorySize)
    }

    /// The policy for the read-post ids.
    public func readPosts() -> any CachePolicy {
        LRUPolicy(maxEntries: configuration.timelineCache.maxReadPosts)
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
        let regular = MaintenancePolicies(timeline: try timelineCache(), history: history(), readPosts: readPosts(), underMemoryPressure: false)
        guard let memoryUse, memoryUse >= configuration.performance.memoryWarningThreshold else { return regular }
        let floors = memoryPressureFloors()
        return MaintenancePolicies(timeline: CacheChainPolicy([regular.timeline, floors.timeline]),
                                   history: CacheChainPolicy([regular.history, floors.history]),
                                   readPosts: CacheChainPolicy([regular.readPosts, floors.readPosts]), underMemoryPressure: true)
    }

    /// The policies that apply under memory pressure (`Performance.MemoryWarningThreshold`
    /// crossed): cached posts and read ids keep `TimelineCache.MemoryPressureFloor` entries, the
    /// most recently used; the history keeps its newest snapshot.
    public func memoryPressureFloors() -> (timeline: any CachePolicy, history: any CachePolicy, readPosts: any CachePolicy) {
        let floor = configuration.timelineCache.memoryPressureFloor
        return (LRUPolicy(maxEntries: floor), LRUPolicy(maxEntries: 1), LRUPolicy(maxEntries: floor))
    }

    func policy(_ node: PipelineBuilder.Node, using pipelineBuilder: PipelineBuilder) throws(PipelineError) -> any CachePolicy {
        let type = try pipelineBuilder.type(named: node.name, among: registry.types(of: .cache), label: "cache policy")
        let parameters = try pipelineBuilder.options(for: node, type: type)
        var children: [any CachePolicy] = []
        for child in node.children { children.append(try policy(child, using: pipelineBuilder)) }
        guard case .cache(let built) = try pipelineBuilder.make(type, StrategyOptions(parameters: parameters, cachePolicies: children)) else {
            throw PipelineError("\(node.name) did not build a cache policy")
        }
        return built
    }
}
