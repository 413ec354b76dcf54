import LRU
import StrategyKit
import StrategyTestSupport
import Testing

@Suite("LRU scenarios")
struct LRUScenarioTests {
    @Test("every named scenario evicts the expected keys, in order")
    func scenarios() throws {
        let results = try CacheScenarioRunner.run(LRUPolicy.type)
        #expect(!results.isEmpty)
        for result in results {
            #expect(result.evictions == result.scenario.expectedEvictions, "\(result.scenario.name)")
        }
    }
}
