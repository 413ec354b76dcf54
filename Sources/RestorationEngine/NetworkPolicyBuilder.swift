import Configuration
import JSONSchema
import StrategyKit
import ValueTree

/// Builds the network policy the configuration's `Network.Policy` chooses, through the
/// registry.
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

    /// The policy a spec names, with its parameters checked against the type's schema.
    public func policy(from spec: ComponentSpec) throws(PipelineError) -> any NetworkPolicy {
        let pipelineBuilder = PipelineBuilder(registry: registry, configuration: configuration)
        let type = try pipelineBuilder.type(named: spec.name, among: registry.types(of: .network), label: "network policy")
        let parameters = try pipelineBuilder.options(for: pipelineBuilder.node(from: spec), type: type)
        guard case .network(let built) = try pipelineBuilder.make(type, StrategyOptions(parameters: parameters)) else {
            throw PipelineError("\(spec.name) did not build a network policy")
        }
        return built
    }
}
