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
        guard let type = registry[spec.name], type.kind == .network else {
            let names = registry.types(of: .network).map(\.name)
            var message = "unknown network policy \(Value.quote(spec.name))"
            if let suggestion = Suggestions.closest(to: spec.name, among: names) { message += "; did you mean \(Value.quote(suggestion))?" }
            throw PipelineError(message + " Registered: \(names.joined(separator: ", "))")
        }
        let pipelineBuilder = PipelineBuilder(registry: registry, configuration: configuration)
        let parameters = try pipelineBuilder.options(for: pipelineBuilder.node(from: spec), type: type)
        do {
            guard case .network(let built) = try type.make(StrategyOptions(parameters: parameters)) else {
                throw PipelineError("\(spec.name) did not build a network policy")
            }
            return built
        } catch let error as PipelineError {
            throw error
        } catch {
            throw PipelineError("\(spec.name): \(error)")
        }
    }
}
