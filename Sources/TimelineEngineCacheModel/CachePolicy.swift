import Foundation
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// What a cache policy knows of one cached item: its key, when it was stored and last used,
/// and its size.
public struct CacheEntry: Sendable, Equatable {
    public var key: String
    public var storedAt: Date
    public var lastAccess: Date
    public var bytes: Int

    public init(key: String, storedAt: Date, lastAccess: Date? = nil, bytes: Int = 0) {
        self.key = key
        self.storedAt = storedAt
        self.lastAccess = lastAccess ?? storedAt
        self.bytes = bytes
    }
}

/// Decides what a bounded cache lets go: cached timeline entries, position history, read-post
/// ids. Implementations are pure: given the entries and the time, they name the keys to evict.
public protocol CachePolicy: Sendable {
    /// The registered name.
    var name: String { get }
    /// The keys to evict from `entries` at `now`, in eviction order, each once.
    func evictions(from entries: [CacheEntry], now: Date) -> [String]
}

extension CachePolicy {
    /// The entries least recently used first (ties: stored earlier first, then by key), the
    /// order in which the size-bounding policies evict.
    public static func leastRecentlyUsedFirst(_ entries: [CacheEntry]) -> [CacheEntry] {
        entries.sorted {
            if $0.lastAccess != $1.lastAccess { return $0.lastAccess < $1.lastAccess }
            if $0.storedAt != $1.storedAt { return $0.storedAt < $1.storedAt }
            return $0.key < $1.key
        }
    }
}

/// A named example of a cache policy at work, run by the conformance suite: entries, the time,
/// parameters, and the keys the policy must evict, in order.
public struct CacheScenario: StrategyExample {
    public let name: String
    public let entries: [CacheEntry]
    public let now: Date
    public let parameters: [String: Double]
    /// For a composition: the policies it combines, built through the registry.
    public let stages: [ExampleStage]
    public let expectedEvictions: [String]

    public init(
        name: String, entries: [CacheEntry], now: Date, parameters: [String: Double] = [:], stages: [ExampleStage] = [],
        expectedEvictions: [String]
    ) {
        self.name = name
        self.entries = entries
        self.now = now
        self.parameters = parameters
        self.stages = stages
        self.expectedEvictions = expectedEvictions
    }
}

extension CacheScenario {
    public var parameterValues: Value.Dictionary { Self.parameterValues(numbers: parameters) }
}
