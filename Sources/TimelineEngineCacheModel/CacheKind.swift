import TimelineEngineStrategyKit

extension StrategyKind {
    /// Bounds a cache: which entries to evict (LRU, TTL, SizeBounded, CacheChain).
    public static let cache = StrategyKind(
        "cache", label: "cache policy", order: 3, component: (any CachePolicy).self,
        configuration: ConfigurationFace(
            title: "Cache policy",
            description: "One cache policy: the registered policy's name under Strategy, and its parameters beside it.",
            form: .dictionary))
}

extension BuiltStrategy {
    /// A cache policy.
    public static func cache(_ policy: any CachePolicy) -> BuiltStrategy { BuiltStrategy(policy) }
}

extension StrategyOptions {
    /// For cache compositions: the policies built from its arguments.
    public var cachePolicies: [any CachePolicy] { components(as: (any CachePolicy).self) }
}
