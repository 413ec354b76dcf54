import TimelineEngineStrategyKit

extension StrategyKind {
    /// Picks a position register's value among the devices' writes (LastWriterWins,
    /// FurthestRead, CausalFurthest).
    public static let merge = StrategyKind(
        "merge", label: "merge policy", order: 5, component: (any MergePolicy).self,
        configuration: .nameOrDictionary(title: "Merge policy"))
    /// Carries positions between devices (None, Directory, HTTP, MastodonMarkers,
    /// iCloudKeyValueStore).
    public static let transport = StrategyKind(
        "transport", label: "transport", order: 6, component: (any SyncTransport).self,
        configuration: .nameOrDictionary(title: "Transport"))
}

extension BuiltStrategy {
    /// A merge policy.
    public static func merge(_ policy: any MergePolicy) -> BuiltStrategy { BuiltStrategy(policy) }
    /// A transport.
    public static func transport(_ transport: any SyncTransport) -> BuiltStrategy { BuiltStrategy(transport) }
}
