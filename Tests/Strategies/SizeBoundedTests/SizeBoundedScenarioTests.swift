import SizeBounded
import StrategyKit
import StrategyTestSupport
import Testing

@Suite("SizeBounded scenarios")
struct SizeBoundedScenarioTests {
    @Test("every named scenario evicts the expected keys, in order")
    func scenarios() throws {
        let results = try CacheScenarioRunner.run(SizeBoundedPolicy.type)
        #expect(!results.isEmpty)
        for result in results {
            #expect(result.evictions == result.scenario.expectedEvictions, "\(result.scenario.name)")
        }
    }
}
