import NeighborAnchor
import StrategyKit
import StrategyTestSupport
import Testing

@Suite("NeighborAnchor scenarios")
struct NeighborAnchorScenarioTests {
    @Test("every named scenario gives the expected post")
    func scenarios() throws {
        let results = try ScenarioRunner.run(NeighborAnchorStrategy.type)
        #expect(!results.isEmpty)
        for result in results {
            #expect(result.chosenPostId == result.scenario.expectedPostId, "\(result.scenario.name)")
            if let method = result.scenario.expectedMethod, result.candidate != nil {
                #expect(result.candidate?.method == method, "\(result.scenario.name)")
            }
        }
    }
}
