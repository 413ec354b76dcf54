import Foundation
import Testing
import TimelineEngineCacheChain
import TimelineEngineCacheModel
import TimelineEngineStrategyKit

@Suite("CacheChain", .timeLimit(.minutes(10)))
struct CacheChainTests {
    /// Evicts the listed keys when present.
    struct Evict: CachePolicy {
        let name = "Evict"
        let keys: [String]
        func evictions(from entries: [CacheEntry], now: Date) -> [String] {
            keys.filter { key in entries.contains { $0.key == key } }
        }
    }

    @Test("applies its policies in order, each to what the previous ones kept")
    func order() throws {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let entries = ["a", "b", "c"].map { CacheEntry(key: $0, storedAt: now) }
        let options = StrategyOptions(components: [Evict(keys: ["b"]), Evict(keys: ["b", "c"])])
        guard let chain = try CacheChainPolicy.type.make(options).as((any CachePolicy).self) else {
            Issue.record("not a cache policy")
            return
        }
        #expect(chain.evictions(from: entries, now: now) == ["b", "c"])
    }

    @Test("needs at least one policy")
    func empty() {
        #expect(throws: StrategyError("CacheChain needs at least one policy")) { try CacheChainPolicy.type.make(StrategyOptions()) }
    }
}
