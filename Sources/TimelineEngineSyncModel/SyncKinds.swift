import TimelineEngineStrategyKit

extension StrategyKind {
    /// Picks a position register's value among the devices' writes (LastWriterWins,
    /// FurthestRead, CausalFurthest).
    public static let merge = StrategyKind(
        "merge", label: "merge policy", order: 5, component: (any MergePolicy).self,
        configuration: ConfigurationFace(
            title: "Merge policy",
            description: "A registered merge policy: its name, or a dictionary with its name under Strategy and its parameters beside it.",
            form: .nameOrDictionary))
    /// Carries positions between devices (None, Directory, HTTP, MastodonMarkers,
    /// iCloudKeyValueStore).
    public static let transport = StrategyKind(
        "transport", label: "transport", order: 6, component: (any SyncTransport).self,
        configuration: ConfigurationFace(
            title: "Transport",
            description: "A registered transport: its name, or a dictionary with its name under Strategy and its parameters beside it.",
            form: .nameOrDictionary))
}

extension BuiltStrategy {
    /// A merge policy.
    public static func merge(_ policy: any MergePolicy) -> BuiltStrategy { BuiltStrategy(policy) }
    /// A transport.
    public static func transport(_ transport: any SyncTransport) -> BuiltStrategy { BuiltStrategy(transport) }
}
