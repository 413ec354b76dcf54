import TimelineEngineConfiguration
import TimelineEngineReachModel
import TimelineEngineValueTree

/// Builds the `Network` section's components through the registry: the retry policy
/// `Network.Policy` chooses and the reach strategy of `Network.Reach`.
public struct NetworkPolicyBuilder: Sendable {
    public let registry: StrategyRegistry
    public let configuration: TimelineConfiguration

    public init(registry: StrategyRegistry = BuiltInStrategies.registry, configuration: TimelineConfiguration = .defaults) {
        self.registry = registry
        self.configuration = configuration
    }

    /// The configured policy.
    public func build() throws(PipelineError) -> any NetworkPolicy {
        try policy(from: configuration.network.policy)
    }

    /// The configured reach strategy (`Network.Reach`).
    public func reachStrategy() throws(PipelineError) -> any ReachStrategy {
        let spec = configuration.network.reach
        return try registry.reachStrategy(spec)
    }

    /// The policy a spec names, with its parameters checked against the type's schema.
    public func policy(from spec: ComponentSpec) throws(PipelineError) -> any NetworkPolicy {
        try registry.networkPolicy(spec)
    }
}
