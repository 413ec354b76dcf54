import Foundation
import TimelineEngineCacheModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// SizeBounded: keeps the entries' total size at most `MaxBytes`, evicting the least recently
/// used first until it fits.
public struct SizeBoundedPolicy: CachePolicy, DeclaredStrategy {
    public static let maxBytesParameter = Parameter<Int>(
        "MaxBytes", help: "The most bytes kept (52428800 = 50 MiB).", default: 52_428_800, minimum: 0, maximum: 1 << 50)

    public static let type = StrategyType(
        name: "SizeBounded", kind: .cache,
        summary: "Keeps the total size at most MaxBytes, evicting the least recently used first.",
        parameters: [maxBytesParameter.declaration],
        examples: SizeBoundedPolicy.scenarios
    ) { options in
        .cache(SizeBoundedPolicy(maxBytes: options(maxBytesParameter)))
    }

    public let maxBytes: Int

    public init(maxBytes: Int) {
        self.maxBytes = max(0, maxBytes)
    }

    public func evictions(from entries: [CacheEntry], now: Date) -> [String] {
        var total = entries.reduce(0) { $0 + max(0, $1.bytes) }
        guard total > maxBytes else { return [] }
        var evicted: [String] = []
        for entry in Self.leastRecentlyUsedFirst(entries) {
            guard total > maxBytes else { break }
            total -= max(0, entry.bytes)
            evicted.append(entry.key)
        }
        return evicted
    }

    static let scenarios: [CacheScenario] = {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let entries = [
            CacheEntry(key: "big-old", storedAt: base, bytes: 600),
            CacheEntry(key: "small-old", storedAt: base.addingTimeInterval(1), bytes: 100),
            CacheEntry(key: "recent", storedAt: base.addingTimeInterval(2), bytes: 300),
        ]
        return [
            CacheScenario(name: "fits: nothing evicted", entries: entries, now: base, parameters: ["MaxBytes": 1000], expectedEvictions: []),
            CacheScenario(
                name: "evicts least recently used until it fits", entries: entries, now: base, parameters: ["MaxBytes": 350],
                expectedEvictions: ["big-old", "small-old"]),
            CacheScenario(
                name: "stops as soon as the total is exactly the limit", entries: entries, now: base, parameters: ["MaxBytes": 400],
                expectedEvictions: ["big-old"]),
            CacheScenario(name: "exactly the limit fits", entries: entries, now: base, parameters: ["MaxBytes": 1000], expectedEvictions: []),
        ]
    }()
}
