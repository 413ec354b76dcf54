import Foundation
import TimelineEngineCacheModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// LRU: keeps at most `MaxEntries` entries, evicting the least recently used first (ties: the
/// one stored earlier, then by key). For the read-post set, where an entry's last use is when
/// the post was read, this keeps the newest reads.
public struct LRUPolicy: CachePolicy, DeclaredStrategy {
    public static let maxEntriesParameter = Parameter<Int>(
        "MaxEntries", help: "The most entries kept.", default: 500, minimum: 0, maximum: 100_000_000)

    public static let type = StrategyType(
        name: "LRU", kind: .cache,
        summary: "Keeps at most MaxEntries entries, evicting the least recently used first.",
        parameters: [maxEntriesParameter.declaration],
        examples: LRUPolicy.scenarios
    ) { options in
        .cache(LRUPolicy(maxEntries: options(maxEntriesParameter)))
    }

    public let maxEntries: Int

    public init(maxEntries: Int) {
        self.maxEntries = max(0, maxEntries)
    }

    public func evictions(from entries: [CacheEntry], now: Date) -> [String] {
        guard entries.count > maxEntries else { return [] }
        return Self.leastRecentlyUsedFirst(entries).prefix(entries.count - maxEntries).map(\.key)
    }

    static let scenarios: [CacheScenario] = {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let entries = [
            CacheEntry(key: "a", storedAt: base, lastAccess: base.addingTimeInterval(50)),
            CacheEntry(key: "b", storedAt: base.addingTimeInterval(10), lastAccess: base.addingTimeInterval(20)),
            CacheEntry(key: "c", storedAt: base.addingTimeInterval(20)),
            CacheEntry(key: "d", storedAt: base.addingTimeInterval(5), lastAccess: base.addingTimeInterval(20)),
        ]
        return [
            CacheScenario(
                name: "under the bound keeps everything", entries: entries, now: base, parameters: ["MaxEntries": 4],
                expectedEvictions: []),
            CacheScenario(
                name: "evicts the least recently used, ties by storage time", entries: entries, now: base,
                parameters: ["MaxEntries": 2], expectedEvictions: ["d", "b"]),
            CacheScenario(
                name: "zero keeps nothing", entries: entries, now: base, parameters: ["MaxEntries": 0],
                expectedEvictions: ["d", "b", "c", "a"]),
        ]
    }()
}
