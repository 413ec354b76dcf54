import EngineConfiguration
import StrategyKit
import SyncModel

/// One factory per strategy kind, on the registry in use: whoever builds a merge policy, a
/// transport, a reach strategy, a cache or a network policy (the façade and its reload, `engine
/// sync`, `engine compare` and its replay, the builders) builds it here, so a plugin's strategy
/// of any kind is honoured on every path that builds that kind.
extension StrategyRegistry {
    /// The merge policy `spec` names, its parameters checked.
    public func mergePolicy(_ spec: ComponentSpec) throws(PipelineError) -> any MergePolicy {
        try component(spec, .merge, "merge policy") { if case .merge(let built) = $0 { built } else { nil } }
    }

    /// The transport `spec` names, its parameters checked.
    public func transport(_ spec: ComponentSpec) throws(PipelineError) -> any SyncTransport {
        try component(spec, .transport, "transport") { if case .transport(let built) = $0 { built } else { nil } }
    }

    /// The reach strategy `spec` names, its parameters checked.
    public func reachStrategy(_ spec: ComponentSpec) throws(PipelineError) -> any ReachStrategy {
        try component(spec, .reach, "reach strategy") { if case .reach(let built) = $0 { built } else { nil } }
    }

    /// The cache policy `spec` names, its parameters checked.
    public func cachePolicy(_ spec: ComponentSpec) throws(PipelineError) -> any CachePolicy {
        try component(spec, .cache, "cache policy") { if case .cache(let built) = $0 { built } else { nil } }
    }

    /// The network policy `spec` names, its parameters checked.
    public func networkPolicy(_ spec: ComponentSpec) throws(PipelineError) -> any NetworkPolicy {
        try component(spec, .network, "network policy") { if case .network(let built) = $0 { built } else { nil } }
    }

    /// `spec` built as `kind`, and taken out of its case.
    private func component<T>(
        _ spec: ComponentSpec, _ kind: StrategyKind, _ label: String,
        _ extract: (BuiltStrategy) -> T?
    ) throws(PipelineError) -> T {
        guard let built = extract(try build(StrategyNode(spec), kind: kind)) else { throw PipelineError("\(spec.name) did not build a \(label)") }
        return built
    }
}
