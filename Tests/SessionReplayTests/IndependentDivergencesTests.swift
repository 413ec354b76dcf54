import Foundation
import Testing
import TimelineEngineConfiguration
import TimelineEngineSessionComparison
import TimelineEngineSessionReplay
import TimelineEngineStrategyKit
import TimelineEngineTestSupport

/// The configured engine on sessions written from the format's definitions by a reading model
/// that is not the simulator's (`Tests/Fixtures/independent-divergences`): it asks where the
/// reader's devices truly diverged, asks nowhere else, and never takes the reader back.
@Suite("Independent divergences", .ownThread, .timeLimit(.minutes(30)))
struct IndependentDivergencesTests {
    @Test("CausalFurthest asks at every one of 102 true divergences, at no other point, lands every point and takes no one back")
    func configuredPolicy() async throws {
        let configured = Array(try ComparisonCandidate.candidates(configuration: .defaults, specs: []).prefix(1))
        let runner = ComparisonRunner(candidates: configured, settings: ReplaySettings(configuration: .defaults), jobs: 2)
        let files = try SessionFiles.expand([Fixtures.url("independent-divergences").path])
        #expect(files.count == 30)
        let report = await runner.run(
            variants: [ComparisonVariant(label: "CausalFurthest", mergePolicy: ComponentSpec(name: "CausalFurthest"))], files: files)
        let results = try #require(report.pipelines.first)
        let diverged = try #require(results.byTag["diverged"])
        #expect(diverged.divergentPoints == 102)
        // Before a one-sided clock bound was read with its sign (a late delivery is no wrong
        // clock), 96 were asked, and one reader was taken back; before a visit counted the posts
        // read rather than the distance from where it opened (a reader who flicked up to the new
        // posts and read back down had "moved" two), 99.
        #expect(diverged.missedDivergences == 0, "missed \(diverged.missedDivergences) of \(diverged.divergentPoints)")
        #expect(diverged.summary.promptedDivergences == 1)
        #expect(results.all.phantomPrompts == 0)
        #expect(results.all.backJumps == 0)
        for tag in ["switch", "return", "glance"] {
            let figures = try #require(results.byTag[tag], "\(tag)")
            #expect(figures.summary.exact == 1, "\(tag): \(figures.summary.exact ?? 0)")
            #expect(figures.prompts == 0, "\(tag)")
        }
    }
}
