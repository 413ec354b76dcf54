import Foundation
import Testing
import TimelineEngineConfiguration
import TimelineEngineSessionComparison
import TimelineEngineSessionReplay
import TimelineEngineTestSupport

/// The configured engine on one-device sessions whose reader's post was deleted, written by a
/// reading model that is not the simulator's (`Tests/Fixtures/independent-deletions`): the
/// reader lands on the next surviving post in the way they were reading, whether they flicked
/// down and nudged back up or caught up from an old place.
@Suite("Independent deletions", .timeLimit(.minutes(10)))
struct IndependentDeletionsTests {
    @Test("a deleted post's reader lands on the next surviving post in the way they read, at 0.99 of restores or more")
    func configuredPipeline() async throws {
        let configured = Array(try ComparisonCandidate.candidates(configuration: .defaults, specs: []).prefix(1))
        let runner = ComparisonRunner(candidates: configured, settings: ReplaySettings(configuration: .defaults), jobs: 1)
        let files = try SessionFiles.expand([Fixtures.url("independent-deletions").path])
        #expect(files.count == 30)
        let report = await runner.run(files: files)
        let deleted = try #require(report.pipelines.first?.byTag["deleted"])
        #expect(deleted.restorePoints == 231)
        // Before the reading direction counted posts rather than saves: 0.013, each reader going
        // down placed one post above.
        #expect(deleted.summary.exact ?? 0 >= 0.99, "exact \(deleted.summary.exact ?? 0)")
    }
}
