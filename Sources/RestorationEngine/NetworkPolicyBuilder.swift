import EngineConfiguration
import StrategyKit
import ValueTree

/// Builds the network policy the configuration's `Network.Policy` chooses (by default
/// `DefaultComponents.networkPolicy`), through the registry.
public struct NetworkPolicyBuilder: Sendable {
    public let registry: StrategyRegistry
    public let configuration: TimelineConfiguration

    public init(registry: StrategyRegistry = BuiltInStrategies.registry, configuration: TimelineConfiguration = .defaults) {
        self.registry = registry
        self.configuration = configuration
    }

    /// The configured policy.
    public func build() throws(PipelineError) -> any NetworkPolicy {
        try policy(from: configuration.network.policy ?? DefaultComponents.networkPolicy)
    }

    /// The policy a spec names, with its parameters checked against the type's schema.
    public func policy(from spec: ComponentSpec) throws(PipelineError) -> any NetworkPolicy {
        guard case .network(let built) = try registry.build(StrategyNode(spec), kind: .network) else {
            throw PipelineError("\(spec.name) did not build a network policy")
        }
        return built
    }
}
