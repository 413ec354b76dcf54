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
        guard case .merge(let built) = try build(StrategyNode(spec), kind: .merge) else { throw Self.wrongKind(spec, "merge policy") }
        return built
    }

    /// The transport `spec` names, its parameters checked.
    public func transport(_ spec: ComponentSpec) throws(PipelineError) -> any SyncTransport {
        guard case .transport(let built) = try build(StrategyNode(spec), kind: .transport) else { throw Self.wrongKind(spec, "transport") }
        return built
    }

    /// The reach strategy `spec` names, its parameters checked.
    public func reachStrategy(_ spec: ComponentSpec) throws(PipelineError) -> any ReachStrategy {
        guard case .reach(let built) = try build(StrategyNode(spec), kind: .reach) else { throw Self.wrongKind(spec, "reach strategy") }
        return built
    }

    /// The cache policy `spec` names, its parameters checked.
    public func cachePolicy(_ spec: ComponentSpec) throws(PipelineError) -> any CachePolicy {
        guard case .cache(let built) = try build(StrategyNode(spec), kind: .cache) else { throw Self.wrongKind(spec, "cache policy") }
        return built
    }

    /// The network policy `spec` names, its parameters checked.
    public func networkPolicy(_ spec: ComponentSpec) throws(PipelineError) -> any NetworkPolicy {
        guard case .network(let built) = try build(StrategyNode(spec), kind: .network) else { throw Self.wrongKind(spec, "network policy") }
        return built
    }

    private static func wrongKind(_ spec: ComponentSpec, _ kind: String) -> PipelineError {
        PipelineError("\(spec.name) did not build a \(kind)")
    }
}
