import ExponentialBackoff
import StrategyKit
import StrategyTestSupport
import Testing

@Suite("ExponentialBackoff scenarios")
struct ExponentialBackoffScenarioTests {
    @Test("every named scenario answers the expected delays")
    func scenarios() throws {
        let results = try NetworkScenarioRunner.run(ExponentialBackoffPolicy.type)
        #expect(!results.isEmpty)
        for result in results {
            #expect(result.delays == result.scenario.expectedDelays, "\(result.scenario.name)")
        }
    }
}
