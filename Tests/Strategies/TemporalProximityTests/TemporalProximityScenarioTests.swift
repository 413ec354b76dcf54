import TemporalProximity
import StrategyKit
import StrategyTestSupport
import Testing

@Suite("TemporalProximity scenarios")
struct TemporalProximityScenarioTests {
    @Test("every named scenario gives the expected post")
    func scenarios() throws {
        let results = try ScenarioRunner.run(TemporalProximityStrategy.type)
        #expect(!results.isEmpty)
        for result in results {
            #expect(result.chosenPostId == result.scenario.expectedPostId, "\(result.scenario.name)")
            if let method = result.scenario.expectedMethod, result.candidate != nil {
                #expect(result.candidate?.method == method, "\(result.scenario.name)")
            }
        }
    }
}
