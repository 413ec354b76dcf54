import Foundation
import Testing
import TimelineEngineCacheModel
import TimelineEngineConfiguration
import TimelineEngineRestoration

@Suite("Cache policies from the configuration", .timeLimit(.minutes(10)))
struct CachePolicyBuilderTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func configuration(_ json: String) -> TimelineConfiguration {
        ConfigurationLoader().read(data: Data(json.utf8)).configuration
    }

    /// Entries 0…n−1, entry i stored i days ago and last used i seconds ago.
    static func entries(_ count: Int) -> [CacheEntry] {
        (0..<count).map {
            CacheEntry(
                key: "e\($0)", storedAt: now.addingTimeInterval(Double(-86_400 * $0)),
                lastAccess: now.addingTimeInterval(Double(-$0)))
        }
    }

    @Test("by default: TTL of MaxAge, then LRU to MaxCacheSize")
    func defaults() throws {
        let policy = try CachePolicyBuilder(configuration: Self.configuration(#"{"TimelineCache": {"MaxCacheSize": 3, "MaxAge": 432000}}"#))
            .timelineCache()
        // e6…e9 are more than 5 days old; of e0…e5, LRU keeps the three most recently used.
        #expect(policy.evictions(from: Self.entries(10), now: Self.now) == ["e9", "e8", "e7", "e6", "e5", "e4", "e3"])
        #expect(try CachePolicyBuilder().timelineCache().evictions(from: Self.entries(10), now: Self.now) == ["e9", "e8"])
    }

    @Test("an explicit Policy is built through the registry, compositions included")
    func explicit() throws {
        let configuration = Self.configuration(
            """
            {"TimelineCache": {"Policy": [
              {"Strategy": "SizeBounded", "MaxBytes": 0},
              {"Strategy": "CacheChain", "Stages": [{"Strategy": "LRU", "MaxEntries": 1}]}]}}
            """)
        #expect(configuration.timelineCache.policy?.map(\.name) == ["SizeBounded", "CacheChain"])
        let policy = try CachePolicyBuilder(configuration: configuration).timelineCache()
        #expect(policy.evictions(from: Self.entries(3), now: Self.now) == ["e2", "e1"])
    }

    @Test("history and read posts keep the newest")
    func histories() throws {
        let builder = CachePolicyBuilder(
            configuration: Self.configuration(
                #"{"PositionPersistence": {"MaxHistorySize": 2}, "TimelineCache": {"MaxReadPosts": 1}}"#))
        #expect(try builder.history().evictions(from: Self.entries(4), now: Self.now) == ["e3", "e2"])
        #expect(try builder.readPosts().evictions(from: Self.entries(4), now: Self.now) == ["e3", "e2", "e1"])
    }

    @Test("engine validate checks policy names and parameters at their lines")
    func validation() {
        let json = """
            {"TimelineCache": {"Policy": [
              {"Strategy": "LRU", "MaxEntries": -1},
              {"Strategy": "TTLL"}]}}
            """
        let diagnostics = ConfigurationLoader().read(data: Data(json.utf8), fileName: "c.json").diagnostics.map(\.description)
        #expect(
            diagnostics == [
                "c.json:2:37: error: TimelineCache.Policy[0].MaxEntries: -1 is less than the minimum 0 (allowed: ≥ 0 and ≤ 100000000)",
                "c.json:3:16: error: TimelineCache.Policy[1].Strategy: \"TTLL\" is not one of the allowed values: \"CacheChain\", \"LRU\", \"SizeBounded\", \"TTL\"; did you mean \"TTL\"?",
            ])
    }
}
