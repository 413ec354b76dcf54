import EngineConfiguration
import RestorationEngine
import SyncModel

/// The merge policy and transport a configuration chooses, built through the registry:
/// `Sync.Policy` and `Sync.Transport`; `None` whenever `PositionPersistence.CrossSessionSync` is
/// false; and iCloud's key-value store when `Sync.Transport` is None,
/// `PositionPersistence.iCloudSyncEnabled` is true and the platform has the store.
public struct SyncComponents: Sendable {
    public let policy: any MergePolicy
    public let transport: any SyncTransport
    /// The transport's spec as it was built (`None` when sync is off).
    public let transportSpec: ComponentSpec

    /// True when positions stay on this device (the transport is `None`).
    public var isLocal: Bool { transportSpec.name == DefaultComponents.noTransport.name }

    private init(policy: any MergePolicy, transport: any SyncTransport, transportSpec: ComponentSpec) {
        self.policy = policy
        self.transport = transport
        self.transportSpec = transportSpec
    }

    /// A policy and a transport given as they are (tests, and tools that build their own).
    public static func with(policy: any MergePolicy, transport: any SyncTransport) -> SyncComponents {
        SyncComponents(policy: policy, transport: transport, transportSpec: ComponentSpec(name: transport.name))
    }

    public init(configuration: TimelineConfiguration, registry: StrategyRegistry = BuiltInStrategies.registry) throws(PipelineError) {
        let policy = try registry.mergePolicy(configuration.sync.policy)
        let persistence = configuration.positionPersistence
        var spec = persistence.crossSessionSync ? configuration.sync.transport : DefaultComponents.noTransport
        var transport: (any SyncTransport)?
        // iCloud's store where the platform has it: elsewhere it does not build, and sync stays off.
        if persistence.crossSessionSync, spec.name == DefaultComponents.noTransport.name, persistence.iCloudSyncEnabled,
            let iCloud = try? registry.transport(DefaultComponents.iCloudTransport)
        {
            spec = DefaultComponents.iCloudTransport
            transport = iCloud
        }
        if transport == nil { transport = try registry.transport(spec) }
        self.policy = policy
        self.transport = transport!
        transportSpec = spec
    }
}
