import Foundation
import TimelineEngineConfiguration
import TimelineEngineRestoration
import TimelineEngineSyncModel
import TimelineEngineSyncSealing
import TimelineEngineSyncWire

/// The merge policy and transport a configuration chooses, built through the registry:
/// `Sync.Policy` and `Sync.Transport`; `None` whenever `PositionPersistence.CrossSessionSync` is
/// false; and iCloud's key-value store when `Sync.Transport` is None,
/// `PositionPersistence.iCloudSyncEnabled` is true and the platform has the store. With a keyring
/// (the app's, or one derived from the recovery phrase `Sync.EncryptionPhraseVariable` names),
/// the transport seals every head end to end.
public struct SyncComponents: Sendable {
    public let policy: any MergePolicy
    public private(set) var transport: any SyncTransport
    /// The transport's spec as it was built (`None` when sync is off).
    public let transportSpec: ComponentSpec
    /// The keys the transport seals and opens heads with; nil when they travel in the clear.
    public private(set) var keyring: SyncKeyring?

    /// True when positions stay on this device (the transport is `None`).
    public var isLocal: Bool { transportSpec.name == DefaultComponents.noTransport.name }

    private init(policy: any MergePolicy, transport: any SyncTransport, transportSpec: ComponentSpec) {
        keyring = nil
        self.policy = policy
        self.transport = transport
        self.transportSpec = transportSpec
    }

    /// A policy and a transport given as they are (tests, and tools that build their own).
    public static func with(policy: any MergePolicy, transport: any SyncTransport) -> SyncComponents {
        SyncComponents(policy: policy, transport: transport, transportSpec: ComponentSpec(name: transport.name))
    }

    /// The components `configuration` chooses. `keyring`, when given, seals the heads (an app's
    /// own key, from the Keychain); otherwise `Sync.EncryptionPhraseVariable` names the variable of
    /// `environment` holding the recovery phrase, if any.
    public init(
        configuration: TimelineConfiguration, registry: StrategyRegistry = BuiltInStrategies.registry, keyring: SyncKeyring? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(PipelineError) {
        let policy = try registry.mergePolicy(configuration.sync.policy)
        let (spec, iCloud) = Self.transportChoice(configuration, registry: registry)
        self.policy = policy
        if let iCloud { self.transport = iCloud } else { self.transport = try registry.transport(spec) }
        transportSpec = spec
        guard !isLocal else { return }
        var keys = keyring
        if keys == nil { keys = try Self.phraseKeyring(configuration.sync, environment: environment) }
        if let keys { try seal(with: keys) }
    }

    /// The merge policy a restore on this device resolves the register with, or nil where the
    /// configuration keeps positions on this device: what `init` would choose, without the
    /// recovery phrase or the transport, which a restore needs neither of (the heads it has are
    /// opened already).
    public static func restorePolicy(
        configuration: TimelineConfiguration, registry: StrategyRegistry = BuiltInStrategies.registry
    ) throws(PipelineError) -> (any MergePolicy)? {
        guard transportChoice(configuration, registry: registry).spec.name != DefaultComponents.noTransport.name else { return nil }
        return try registry.mergePolicy(configuration.sync.policy)
    }

    /// The transport `configuration` chooses: `Sync.Transport`, `None` whenever
    /// `CrossSessionSync` is false, and iCloud's store (built, here) when the transport is None,
    /// `iCloudSyncEnabled` is true and the platform has the store; elsewhere it does not build,
    /// and sync stays off.
    private static func transportChoice(
        _ configuration: TimelineConfiguration, registry: StrategyRegistry
    ) -> (spec: ComponentSpec, iCloud: (any SyncTransport)?) {
        let persistence = configuration.positionPersistence
        guard persistence.crossSessionSync else { return (DefaultComponents.noTransport, nil) }
        let spec = configuration.sync.transport
        if spec.name == DefaultComponents.noTransport.name, persistence.iCloudSyncEnabled,
            let iCloud = try? registry.transport(DefaultComponents.iCloudTransport)
        {
            return (DefaultComponents.iCloudTransport, iCloud)
        }
        return (spec, nil)
    }

    /// This transport sealing with `keys`: an error for a transport that cannot.
    private mutating func seal(with keys: SyncKeyring) throws(PipelineError) {
        guard let sealable = transport as? any SealableTransport else { throw PipelineError(Self.cannotSeal(transportSpec.name)) }
        transport = sealable.sealing(with: keys)
        keyring = keys
    }

    static func cannotSeal(_ transport: String) -> String {
        """
        Sync.Transport \(transport) cannot seal positions end to end: its server must read them. Unset \
        Sync.EncryptionPhraseVariable, or choose HTTP, Directory or iCloudKeyValueStore
        """
    }

    /// Why `configuration` cannot sync as it says, found without the phrase or the network: it
    /// names a phrase to seal with, and its transport cannot seal (MastodonMarkers: the server
    /// must read the position). What `init` refuses at run time, for `engine validate`. Nil
    /// when there is no such problem, or the transport cannot be made here.
    public static func sealingProblem(_ configuration: TimelineConfiguration, registry: StrategyRegistry) -> String? {
        let spec = configuration.sync.transport
        guard !configuration.sync.encryptionPhraseVariable.isEmpty, configuration.positionPersistence.crossSessionSync,
            spec.name != DefaultComponents.noTransport.name, let transport = try? registry.transport(spec)
        else { return nil }
        return transport is any SealableTransport ? nil : cannotSeal(spec.name)
    }

    /// The keyring of the phrases `settings` names, or nil when it names none.
    static func phraseKeyring(_ settings: SyncSettings, environment: [String: String]) throws(PipelineError) -> SyncKeyring? {
        func key(_ variable: String, _ setting: String) throws(PipelineError) -> SyncKey? {
            guard !variable.isEmpty else { return nil }
            guard let phrase = environment[variable], !phrase.isEmpty else {
                throw PipelineError("Sync.\(setting) names \(variable), which is not set: set it to the reader's recovery phrase")
            }
            do {
                return try SyncKey(phrase: phrase)
            } catch {
                throw PipelineError("Sync.\(setting): \(error.description)")
            }
        }
        guard let current = try key(settings.encryptionPhraseVariable, "EncryptionPhraseVariable") else {
            if !settings.previousEncryptionPhraseVariable.isEmpty {
                throw PipelineError("Sync.PreviousEncryptionPhraseVariable is set without Sync.EncryptionPhraseVariable")
            }
            if !settings.leftBehindKeyIds.isEmpty {
                throw PipelineError("Sync.LeftBehindKeyIds is set without Sync.EncryptionPhraseVariable")
            }
            return nil
        }
        let previous = try key(settings.previousEncryptionPhraseVariable, "PreviousEncryptionPhraseVariable")
        let leftBehind = Set(settings.leftBehindKeyIds.split(separator: ",").map(String.init))
        return SyncKeyring(current: current, previous: previous.map { [$0] } ?? [], leftBehind: leftBehind)
    }
}
