import Testing
import TimelineEngineSessionComparison
import TimelineEngineSessionReplay

/// The comparison metrics on restore points whose answers are worked out by hand below, not by
/// the code under test.
@Suite("Metrics by hand", .timeLimit(.minutes(10)))
struct MetricsAccumulatorTests {
    static func evaluation(_ score: RestoreScore?, latency: UInt64) -> RestoreEvaluation {
        RestoreEvaluation(
            restoration: nil, pipelineRestoration: nil, trace: [], restoresSilently: true, latencyNanoseconds: latency,
            score: score, unscoredReason: score == nil ? "the expected post is not in the timeline" : nil)
    }

    static func score(expected: Int, restored: Int, pixels: Double?, confidence: Double) -> RestoreScore {
        RestoreScore(
            expectedIndex: expected, restoredIndex: restored, exact: expected == restored, within1: abs(expected - restored) <= 1,
            indexError: restored - expected, pixelError: pixels, confidence: confidence)
    }

    /// Five restore points:
    /// 1. exact, 0 pt off, confidence 1.0: (1.0 − 1)² = 0
    /// 2. one post below (skips 1), 4.5 pt off, confidence 0.6: (0.6 − 0)² = 0.36
    /// 3. three posts above (re-reads 3), 12 pt off, confidence 0.2: (0.2 − 0)² = 0.04
    /// 4. exact, no viewportY, confidence 0.9: (0.9 − 1)² = 0.01
    /// 5. unscored
    static let evaluations = [
        evaluation(score(expected: 10, restored: 10, pixels: 0, confidence: 1.0), latency: 10),
        evaluation(score(expected: 10, restored: 11, pixels: 4.5, confidence: 0.6), latency: 20),
        evaluation(score(expected: 10, restored: 7, pixels: 12, confidence: 0.2), latency: 30),
        evaluation(score(expected: 4, restored: 4, pixels: nil, confidence: 0.9), latency: 40),
        evaluation(nil, latency: 50),
    ]

    @Test("exact, within1, index error and its sign, pixel percentiles, Brier score and latency, worked out by hand")
    func handWorked() {
        var accumulator = MetricsAccumulator()
        for evaluation in Self.evaluations { accumulator.add(evaluation) }
        let summary = accumulator.summary
        #expect(summary.restorePoints == 4)
        #expect(summary.unscored == 1)
        #expect(summary.exact == 0.5)  // points 1 and 4 of 4
        #expect(summary.within1 == 0.75)  // 1, 2 and 4: point 3 is 3 posts off
        #expect(summary.meanAbsIndexError == 1)  // (0 + 1 + 3 + 0) / 4
        #expect(summary.skipped == 1)  // point 2 lands one below
        #expect(summary.reread == 3)  // point 3 lands three above
        #expect(summary.pixelErrorCount == 3)  // point 4 has no viewportY
        #expect(summary.pixelErrorMedian == 4.5)  // of 0, 4.5, 12: the 2nd of 3
        #expect(summary.pixelErrorP90 == 12)  // rank ⌈0.9 × 3⌉ = 3
        #expect(abs(summary.brier! - 0.1025) < 1e-9)  // (0 + 0.36 + 0.04 + 0.01) / 4
        #expect(summary.latencyP50 == 0.03)  // of 10…50 ns, every point timed: the 3rd of 5
        #expect(summary.latencyP99 == 0.05)
    }

    @Test("an empty accumulator has no rates, and merging halves gives the whole")
    func emptyAndMerged() {
        let empty = MetricsAccumulator().summary
        #expect(empty.exact == nil && empty.within1 == nil && empty.brier == nil && empty.pixelErrorMedian == nil)
        var whole = MetricsAccumulator()
        var first = MetricsAccumulator()
        var second = MetricsAccumulator()
        for (position, evaluation) in Self.evaluations.enumerated() {
            whole.add(evaluation)
            if position < 2 { first.add(evaluation) } else { second.add(evaluation) }
        }
        first.merge(second)
        #expect(first == whole)
    }

    @Test("pixel errors above 16 pt fall in log-linear buckets within 0.8 %: 40 pt reads as 40.25 pt")
    func histogramBuckets() {
        var histogram = Histogram()
        histogram.record(320)  // 40 pt in eighths: bucket of [320, 324), shown as 322
        #expect(histogram.quantile(0.5) == 322)
        var exact = Histogram()
        exact.record(127)
        #expect(exact.quantile(0.5) == 127)
    }
}
