import TimelineEngineStrategyKit

extension StrategyKind {
    /// Decides whether a failed request to a timeline source is retried (NoRetry,
    /// ExponentialBackoff).
    public static let network = StrategyKind(
        "network", label: "network policy", order: 4, component: (any NetworkPolicy).self,
        configuration: ConfigurationFace(
            title: "Network policy",
            description: "The retry policy for refreshing timelines: the registered policy's name under Strategy, and its parameters beside it.",
            form: .dictionary))
    /// Reaches a post the cache lacks, with requests to the timeline's source (PostWindow,
    /// CacheOnly, OnePage, TopPages).
    public static let reach = StrategyKind(
        "reach", label: "reach strategy", order: 7, component: (any ReachStrategy).self,
        configuration: .nameOrDictionary(title: "Reach strategy"))
}

extension BuiltStrategy {
    /// A network policy.
    public static func network(_ policy: any NetworkPolicy) -> BuiltStrategy { BuiltStrategy(policy) }
    /// A reach strategy.
    public static func reach(_ strategy: any ReachStrategy) -> BuiltStrategy { BuiltStrategy(strategy) }
}
