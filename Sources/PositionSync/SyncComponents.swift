import Configuration
import RestorationEngine
import StrategyKit
import SyncModel

/// The merge policy and transport a configuration chooses, built through the registry: `Sync.Policy`
/// and `Sync.Transport`, with `None` whenever `PositionPersistence.CrossSessionSync` is false.
public struct SyncComponents: Sendable {
    public let policy: any MergePolicy
    public let transport: any SyncTransport
    /// The transport's spec as it was built (`None` when sync is off).
    public let transportSpec: ComponentSpec

    public init(configuration: TimelineConfiguration, registry: StrategyRegistry = BuiltInStrategies.registry) throws(PipelineError) {
        guard case .merge(let policy) = try registry.build(StrategyNode(configuration.sync.policy), kind: .merge) else {
            throw PipelineError("\(configuration.sync.policy.name) is not a merge policy")
        }
        let spec = configuration.positionPersistence.crossSessionSync ? configuration.sync.transport : ComponentSpec(name: "None")
        guard case .transport(let transport) = try registry.build(StrategyNode(spec), kind: .transport) else {
            throw PipelineError("\(spec.name) is not a transport")
        }
        self.policy = policy
        self.transport = transport
        transportSpec = spec
    }
}
