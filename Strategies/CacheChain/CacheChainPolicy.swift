import Foundation
import TimelineEngineCacheModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// CacheChain: applies its policies in order, each to what the previous ones kept (for example
/// TTL, then LRU), and evicts the union, in that order.
public struct CacheChainPolicy: CachePolicy, DeclaredStrategy {
    public static let type = StrategyType(
        name: "CacheChain", kind: .cache,
        summary: "Applies its policies in order, each to what the previous ones kept (e.g. TTL, then LRU).",
        composes: .cache,
        examples: CacheChainPolicy.scenarios
    ) { options in
        guard !options.cachePolicies.isEmpty else { throw StrategyError("CacheChain needs at least one policy") }
        return .cache(CacheChainPolicy(options.cachePolicies))
    }

    public let policies: [any CachePolicy]

    public init(_ policies: [any CachePolicy]) {
        self.policies = policies
    }

    public func evictions(from entries: [CacheEntry], now: Date) -> [String] {
        var remaining = entries
        var evicted: [String] = []
        for policy in policies {
            let ordered = policy.evictions(from: remaining, now: now)
            guard !ordered.isEmpty else { continue }
            let keys = Set(ordered)
            var seen = Set<String>()
            evicted += ordered.filter { seen.insert($0).inserted }
            remaining.removeAll { keys.contains($0.key) }
        }
        return evicted
    }

    /// TTL then LRU, the configuration's default chain.
    static let scenarios: [CacheScenario] = {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let entries = (0..<6).map { CacheEntry(key: "e\($0)", storedAt: now.addingTimeInterval(Double(-100 * $0))) }
        return [
            CacheScenario(
                name: "TTL first, then LRU on what is left", entries: entries, now: now,
                stages: [
                    ExampleStage("TTL", ["MaxAge": .init(value: .integer(350))]), ExampleStage("LRU", ["MaxEntries": .init(value: .integer(2))]),
                ],
                expectedEvictions: ["e5", "e4", "e3", "e2"])
        ]
    }()
}
