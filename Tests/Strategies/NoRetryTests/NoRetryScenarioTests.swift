import NoRetry
import StrategyKit
import StrategyTestSupport
import Testing

@Suite("NoRetry scenarios")
struct NoRetryScenarioTests {
    @Test("every named scenario answers the expected delays")
    func scenarios() throws {
        let results = try NetworkScenarioRunner.run(NoRetryPolicy.type)
        #expect(!results.isEmpty)
        for result in results {
            #expect(result.delays == result.scenario.expectedDelays, "\(result.scenario.name)")
        }
    }
}
