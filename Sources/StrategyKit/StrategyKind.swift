/// What a strategy type decides.
public enum StrategyKind: String, CaseIterable, Sendable, Comparable {
    /// Finds the post to restore to (ExactMatch, NeighborAnchor, …, and the compositions).
    case restoration
    /// Always answers, with low confidence (Fallback).
    case fallback
    /// Puts the chosen post at the right pixel (ViewportAnchor).
    case positioning
    /// Bounds a cache: which entries to evict (LRU, TTL, SizeBounded, CacheChain).
    case cache
    /// Decides whether a failed request to a timeline source is retried (NoRetry,
    /// ExponentialBackoff).
    case network
    /// Picks a position register's value among the devices' writes (LastWriterWins,
    /// FurthestRead).
    case merge
    /// Carries positions between devices (None, Directory).
    case transport
    /// Reaches a post the cache lacks, with requests to the timeline's source (PostWindow,
    /// CacheOnly, OnePage, TopPages).
    case reach

    /// True for the kinds that stand in a restoration pipeline.
    public var isStage: Bool { self == .restoration || self == .fallback || self == .positioning }

    /// What the kind is called in messages ("cache policy").
    public var label: String {
        switch self {
        case .restoration, .fallback, .positioning: "strategy"
        case .cache: "cache policy"
        case .network: "network policy"
        case .merge: "merge policy"
        case .transport: "transport"
        case .reach: "reach strategy"
        }
    }

    public static func < (lhs: StrategyKind, rhs: StrategyKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
