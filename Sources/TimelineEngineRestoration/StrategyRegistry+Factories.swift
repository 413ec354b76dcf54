import TimelineEngineCacheModel
import TimelineEngineConfiguration
import TimelineEngineReachModel
import TimelineEngineStrategyKit
import TimelineEngineSyncModel

/// One factory per strategy kind, on the registry in use: whoever builds a merge policy, a
/// transport, a reach strategy, a cache or a network policy (the façade and its reload, `engine
/// sync`, `engine compare` and its replay, the builders) builds it here, so a plugin's strategy
/// of any kind is honoured on every path that builds that kind.
extension StrategyRegistry {
    /// The merge policy `spec` names, its parameters checked.
    public func mergePolicy(_ spec: ComponentSpec) throws(PipelineError) -> any MergePolicy {
        try component(spec, .merge, as: (any MergePolicy).self)
    }

    /// The transport `spec` names, its parameters checked.
    public func transport(_ spec: ComponentSpec) throws(PipelineError) -> any SyncTransport {
        try component(spec, .transport, as: (any SyncTransport).self)
    }

    /// The reach strategy `spec` names, its parameters checked.
    public func reachStrategy(_ spec: ComponentSpec) throws(PipelineError) -> any ReachStrategy {
        try component(spec, .reach, as: (any ReachStrategy).self)
    }

    /// The cache policy `spec` names, its parameters checked.
    public func cachePolicy(_ spec: ComponentSpec) throws(PipelineError) -> any CachePolicy {
        try component(spec, .cache, as: (any CachePolicy).self)
    }

    /// The network policy `spec` names, its parameters checked.
    public func networkPolicy(_ spec: ComponentSpec) throws(PipelineError) -> any NetworkPolicy {
        try component(spec, .network, as: (any NetworkPolicy).self)
    }

    /// The component of `kind` that `spec` names, its parameters checked: the one factory a
    /// kind of its own needs.
    public func component<T>(_ spec: ComponentSpec, _ kind: StrategyKind, as type: T.Type) throws(PipelineError) -> T {
        guard let built = try build(StrategyNode(spec), kind: kind).as(type) else {
            throw PipelineError("\(spec.name) did not build a \(kind.label)")
        }
        return built
    }
}
