import Foundation
import Testing
import TimelineEngineCacheModel
import TimelineEngineConfiguration
import TimelineEngineRestoration
import TimelineEngineStrategyKit
import TimelineEngineStrategyTestSupport
import TimelineEngineValueTree

/// The shared conformance suite for cache policies: every registered `cache` type runs its named
/// scenarios and keeps the invariants on common entry sets.
@Suite("Cache policy conformance", .timeLimit(.minutes(10)))
struct CacheConformanceTests {
    static let types = BuiltInStrategies.registry.types(of: .cache)
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// A composition's scenario's policies, built through the registry from its stages.
    static func children(_ scenario: CacheScenario) throws -> [any CachePolicy] {
        try scenario.stages.map { stage in
            try BuiltInStrategies.registry.cachePolicy(ComponentSpec(name: stage.name, parameters: stage.parameterValues))
        }
    }

    static func build(_ type: StrategyType) throws -> any CachePolicy {
        var parameters = type.defaults
        if type.name == "LRU" { parameters["MaxEntries"] = Value.Member(value: .integer(3)) }
        let children: [any CachePolicy] = type.isComposition ? [TTLStub()] : []
        guard let policy = try type.make(StrategyOptions(parameters: parameters, components: children)).as((any CachePolicy).self) else {
            throw StrategyError("\(type.name) did not build a cache policy")
        }
        return policy
    }

    struct TTLStub: CachePolicy {
        let name = "Stub"
        func evictions(from entries: [CacheEntry], now: Date) -> [String] { entries.filter { now.timeIntervalSince($0.storedAt) > 60 }.map(\.key) }
    }

    @Test("every named scenario evicts the expected keys", arguments: types.map(\.name))
    func scenarios(_ name: String) throws {
        let type = try #require(BuiltInStrategies.registry[name])
        let results = try CacheScenarioRunner.run(type, children: Self.children)
        #expect(!results.isEmpty, "\(name) has no scenarios")
        for result in results { #expect(result.evictions == result.scenario.expectedEvictions, "\(name): \(result.scenario.name)") }
    }

    @Test("evictions are existing keys, each once, deterministic, and a second pass evicts nothing", arguments: types.map(\.name))
    func invariants(_ name: String) throws {
        let policy = try Self.build(try #require(BuiltInStrategies.registry[name]))
        let sets: [[CacheEntry]] = [
            [],
            [CacheEntry(key: "only", storedAt: Self.now)],
            (0..<50).map {
                CacheEntry(
                    key: "k\($0)", storedAt: Self.now.addingTimeInterval(Double(-$0 * 40_000)),
                    lastAccess: Self.now.addingTimeInterval(Double(-($0 * 7919) % 1000)), bytes: 1_000_000 * ($0 % 5))
            },
            (0..<10).map { CacheEntry(key: "same\($0)", storedAt: Self.now, bytes: 100) },
        ]
        for entries in sets {
            let evicted = policy.evictions(from: entries, now: Self.now)
            #expect(Set(evicted).count == evicted.count, "\(name): a key evicted twice")
            #expect(Set(evicted).isSubset(of: Set(entries.map(\.key))), "\(name): evicted a key that is not there")
            #expect(policy.evictions(from: entries, now: Self.now) == evicted, "\(name): not deterministic")
            let kept = entries.filter { !evicted.contains($0.key) }
            #expect(policy.evictions(from: kept, now: Self.now).isEmpty, "\(name): a second pass evicts more")
        }
    }
}
