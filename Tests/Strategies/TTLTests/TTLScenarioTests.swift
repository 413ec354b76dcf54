import TTL
import StrategyKit
import StrategyTestSupport
import Testing

@Suite("TTL scenarios")
struct TTLScenarioTests {
    @Test("every named scenario evicts the expected keys, in order")
    func scenarios() throws {
        let results = try CacheScenarioRunner.run(TTLPolicy.type)
        #expect(!results.isEmpty)
        for result in results {
            #expect(result.evictions == result.scenario.expectedEvictions, "\(result.scenario.name)")
        }
    }
}
