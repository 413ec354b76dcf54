#if SyncServer
import Foundation
import Prometheus

/// What `GET /metrics` reports, in Prometheus's text format: requests by route and status,
/// their durations, writes merged, and long-polls waiting.
public final class ServerMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    private let durations: DurationHistogram
    private let merged: Counter
    private let rejected: Counter
    public let waiting: Gauge

    public init() {
        func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "timeline_sync", metricName: metric, unitName: unit, helpText: help)
        }
        durations = registry.makeDurationHistogram(
            descriptor: name("request_duration", "seconds", "Time to answer a request, long-polls included."),
            buckets: [.milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(50),
                      .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(5), .seconds(30), .seconds(60)])
        merged = registry.makeCounter(descriptor: name("rows_changed", "total", "Register and device-position rows a write changed."))
        rejected = registry.makeCounter(descriptor: name("writes_not_newer", "total", "Writes that changed no row (not newer)."))
        waiting = registry.makeGauge(descriptor: name("long_polls", "waiting", "Long-polls waiting now."))
    }

    /// Counts one answered request.
    public func request(route: String, method: String, status: Int, nanoseconds: Int64) {
        let requests = MetricNameDescriptor(namespace: "timeline_sync", metricName: "requests", unitName: "total", helpText: "Requests answered.")
        registry.makeCounter(descriptor: requests, labels: [("route", route), ("method", method), ("status", String(status))]).increment()
        durations.recordNanoseconds(nanoseconds)
    }

    public func merge(writes: Int, changed: Int) {
        merged.increment(by: Int64(changed))
        rejected.increment(by: Int64(max(0, 2 * writes - changed)))
    }

    public var text: String { registry.emitToString() }
}
#endif
