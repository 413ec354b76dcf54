#if SyncServer
import TimelineEngineSupport
import Foundation
import CoreMetrics
import Prometheus

/// What `GET /metrics` reports, in Prometheus's text format: requests by route and status,
/// their durations, writes merged, and long-polls waiting. Counted through swift-metrics' API
/// (`Counter`, `Timer`, `Meter`), as the engine's restore outcomes are (`RestoreMetrics`), with
/// swift-prometheus's factory as the backend, on a registry of the server's own.
public final class ServerMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let durations: CoreMetrics.Timer
    private let merged: CoreMetrics.Counter
    private let rejected: CoreMetrics.Counter
    private let quotaRefusals: CoreMetrics.Counter
    /// Long-polls waiting now.
    public let waiting: Meter

    public static let durationLabel = "timeline_sync_request_duration_seconds"

    public init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[Self.durationLabel] = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(50),
            .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(5), .seconds(30), .seconds(60),
        ]
        self.factory = factory
        durations = CoreMetrics.Timer(label: Self.durationLabel, factory: factory)
        // Heads a write changed (each device's latest write per register), and writes that
        // changed none (not newer than the device's head).
        merged = CoreMetrics.Counter(label: "timeline_sync_rows_changed_total", factory: factory)
        rejected = CoreMetrics.Counter(label: "timeline_sync_writes_not_newer_total", factory: factory)
        // Writes refused because their user holds the most heads the server keeps for one.
        quotaRefusals = CoreMetrics.Counter(label: "timeline_sync_quota_refusals_total", factory: factory)
        waiting = Meter(label: "timeline_sync_long_polls_waiting", factory: factory)
    }

    /// Counts one answered request.
    public func request(route: String, method: String, status: Int, nanoseconds: Int64) {
        let counter = requestCounters.counter(RequestKey(route: route, method: method, status: status)) {
            CoreMetrics.Counter(
                label: "timeline_sync_requests_total", dimensions: [("route", route), ("method", method), ("status", String(status))],
                factory: factory)
        }
        counter.increment()
        durations.recordNanoseconds(nanoseconds)
    }

    /// Each request counter, made once and kept: making one looks it up in the registry by its
    /// name and labels.
    private let requestCounters = RequestCounters()

    /// A merge of `writes` heads, of which `changed` replaced the stored one.
    public func merge(writes: Int, changed: Int) {
        merged.increment(by: changed)
        rejected.increment(by: max(0, writes - changed))
    }

    /// A write refused because its user's heads are at the bound (`QuotaFull`).
    public func quotaRefused() {
        quotaRefusals.increment()
    }

    public var text: String { registry.emitToString() }
}

/// The labels of a request's counter.
struct RequestKey: Hashable {
    let route: String
    let method: String
    let status: Int
}

/// The request counters by their labels.
final class RequestCounters: Sendable {
    private let counters = Locked<[RequestKey: CoreMetrics.Counter]>([:])

    /// At most this many are kept (methods are the client's to choose); others are looked up
    /// in the registry each time.
    static let capacity = 256

    /// The counter of `key`, made by `make` the first time.
    func counter(_ key: RequestKey, make: () -> CoreMetrics.Counter) -> CoreMetrics.Counter {
        counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = make()
            if counters.count < Self.capacity { counters[key] = counter }
            return counter
        }
    }
}
#endif
