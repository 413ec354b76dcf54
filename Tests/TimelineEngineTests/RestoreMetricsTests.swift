import CoreMetrics
import Foundation
import MetricsTestKit
import Testing
import TimelineEngineKit

/// Restore outcomes published through swift-metrics: counted by outcome, source and post, with
/// the decision timed, in the backend the engine is given; nowhere without one.
@Suite("Restore outcomes through swift-metrics", .timeLimit(.minutes(5)))
struct RestoreMetricsTests {
    static let posts = TimelineEngineTests.posts

    /// The counter of one outcome, 0 when it was never incremented.
    static func count(_ metrics: TestMetrics, outcome: String, source: String = "own", post: String = "cached") -> Int64 {
        let counters = metrics.counters(
            label: RestoreMetrics.outcomesLabel, dimensions: [("outcome", outcome), ("source", source), ("post", post)])
        return counters.map(\.totalValue).reduce(0, +)
    }

    @Test("restores are counted by their outcome, and each decision is timed; a first launch is not a restore")
    func counted() async throws {
        let metrics = TestMetrics()
        let clock = TestClock()
        let engine = try await TimelineEngine(clock: { clock.now }, metrics: metrics)
        let index = TimelineIndex(Timeline(posts: Self.posts, viewportHeight: 600))
        // Nothing saved yet: the top of the timeline, no outcome.
        _ = await engine.restore(in: index)
        #expect(metrics.counters(label: RestoreMetrics.outcomesLabel).isEmpty)

        engine.observeScroll(offset: 1230, viewportHeight: 600, in: index)
        engine.observe(.background, in: index)
        await engine.flush()
        clock.advance(10)
        engine.observe(.foreground)
        // The post is there: exact.
        #expect(await engine.restore(in: index).restoration?.method == .exactMatch)
        // The post and its neighbours are gone, the times remain: a temporal or content match,
        // whatever the pipeline says, counted under its own outcome.
        let others = TimelineIndex(
            Timeline(
                posts: Self.posts.enumerated().filter { !(8...16).contains($0.offset) }.map(\.element), viewportHeight: 600))
        let second = await engine.restore(in: others)
        let secondOutcome = RestoreMetrics.outcome(of: second.restoration)
        #expect(secondOutcome != "exact" && secondOutcome != "none")
        // An empty timeline: nothing found.
        _ = await engine.restore(in: TimelineIndex(Timeline(posts: [], viewportHeight: 600)))

        #expect(Self.count(metrics, outcome: "exact") == 1)
        #expect(Self.count(metrics, outcome: secondOutcome) == 1)
        #expect(Self.count(metrics, outcome: "none") == 1)
        #expect(metrics.counters(label: RestoreMetrics.outcomesLabel).map(\.totalValue).reduce(0, +) == 3)
        let timer = try metrics.expectTimer(RestoreMetrics.decisionLabel)
        #expect(timer.values.count == 3)
        #expect(timer.values.allSatisfy { $0 >= 0 && $0 < 10_000_000_000 })
    }

    @Test("every method has its outcome; a plugin's is other")
    func outcomes() {
        func restoration(_ method: RestorationMethod) -> Restoration {
            Restoration(postId: "p", index: 0, contentOffset: 0, viewportY: 0, method: method, strategy: "s", confidence: 1, explanation: "")
        }
        let methods: [(RestorationMethod, String)] = [
            (.exactMatch, "exact"), (.neighborAnchor, "neighbour"), (.temporalProximity, "temporal"), (.contentSimilarity, "content"),
            (.fallback, "fallback"), (RestorationMethod(rawValue: "my_plugin"), "other"),
        ]
        for (method, outcome) in methods { #expect(RestoreMetrics.outcome(of: restoration(method)) == outcome) }
        #expect(RestoreMetrics.outcome(of: nil) == "none")
    }
}
