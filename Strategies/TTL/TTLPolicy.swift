import Foundation
import TimelineEngineCacheModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// TTL: evicts every entry stored more than `MaxAge` seconds ago (the seed's timeline cache kept
/// entries for 7 days), oldest first.
public struct TTLPolicy: CachePolicy, DeclaredStrategy {
    public static let maxAgeParameter = Parameter<Double>(
        "MaxAge", help: "Seconds an entry is kept after it is stored (604800 = 7 days).", default: 604_800, above: 0, maximum: 315_360_000)

    public static let type = StrategyType(
        name: "TTL", kind: .cache,
        summary: "Evicts entries stored more than MaxAge seconds ago.",
        parameters: [maxAgeParameter.declaration],
        examples: TTLPolicy.scenarios
    ) { options in
        .cache(TTLPolicy(maxAge: options(maxAgeParameter)))
    }

    public let maxAge: Double

    public init(maxAge: Double) {
        self.maxAge = maxAge
    }

    public func evictions(from entries: [CacheEntry], now: Date) -> [String] {
        entries.filter { now.timeIntervalSince($0.storedAt) > maxAge }
            .sorted { $0.storedAt != $1.storedAt ? $0.storedAt < $1.storedAt : $0.key < $1.key }
            .map(\.key)
    }

    static let scenarios: [CacheScenario] = {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let entries = [
            CacheEntry(key: "fresh", storedAt: now.addingTimeInterval(-60)),
            CacheEntry(key: "week-old", storedAt: now.addingTimeInterval(-604_801), lastAccess: now),
            CacheEntry(key: "exactly-max-age", storedAt: now.addingTimeInterval(-604_800)),
            CacheEntry(key: "month-old", storedAt: now.addingTimeInterval(-2_592_000)),
        ]
        return [
            CacheScenario(
                name: "evicts what is older than MaxAge, even if just used", entries: entries, now: now,
                expectedEvictions: ["month-old", "week-old"]),
            CacheScenario(
                name: "a short MaxAge", entries: entries, now: now, parameters: ["MaxAge": 30],
                expectedEvictions: ["month-old", "week-old", "exactly-max-age", "fresh"]),
        ]
    }()
}
