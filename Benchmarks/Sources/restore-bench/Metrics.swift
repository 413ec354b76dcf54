import Foundation
import TimelineEngineKit

/// `restore-bench metrics`: what publishing restore outcomes costs an app that bootstrapped no
/// metrics backend. The façade's `restore(in:)` on 10,000 posts, 2,000 times in turn with the
/// recording as shipped, and the recording alone (`RestoreMetrics.record`, with the process's
/// no-op factory) a million times: its share of a restore.
func metricsBench() async throws {
    let posts = (0..<10_000).map {
        Post(id: "p\($0)", createdAt: Date(timeIntervalSince1970: 1_700_000_000 - Double(60 * $0)), text: "post \($0)", height: 100)
    }
    let index = TimelineIndex(Timeline(posts: posts, viewportHeight: 800))
    let engine = try await TimelineEngine()
    engine.observeScroll(offset: 512_340, viewportHeight: 800, in: index)
    engine.observe(.background, in: index)
    await engine.flush()
    engine.observe(.foreground)
    var restores: [Double] = []
    for _ in 0..<5 {
        let started = now()
        for _ in 0..<2_000 { _ = await engine.restore(in: index) }
        restores.append(Double(now() - started) / 2_000 / 1e3)
    }
    let metrics = RestoreMetrics()
    let restoration = await engine.restore(in: index).restoration
    var records: [Double] = []
    for _ in 0..<5 {
        let started = now()
        for _ in 0..<1_000_000 { metrics.record(restoration, source: .savedSnapshot, reached: false, decision: .microseconds(3)) }
        records.append(Double(now() - started) / 1_000_000)
    }
    print("## Restore outcomes with no metrics backend (median of 5)")
    print()
    print("| | per restore |")
    print("|---|---:|")
    print(String(format: "| the façade's restore(in:), 10,000 posts, the post present (2,000 restores) | %.2f µs |", median(restores)))
    print(String(format: "| of which the outcome counted and the decision timed, no backend (1,000,000 records) | %.0f ns |", median(records)))
}
