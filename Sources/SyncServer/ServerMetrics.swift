#if SyncServer
import EngineSupport
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
            buckets: [
                .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(20), .milliseconds(50),
                .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(5), .seconds(30), .seconds(60),
            ])
        merged = registry.makeCounter(
            descriptor: name("rows_changed", "total", "Heads a write changed (each device's latest write per register)."))
        rejected = registry.makeCounter(
            descriptor: name("writes_not_newer", "total", "Writes that changed no head (not newer than the device's head)."))
        waiting = registry.makeGauge(descriptor: name("long_polls", "waiting", "Long-polls waiting now."))
    }

    /// Counts one answered request.
    public func request(route: String, method: String, status: Int, nanoseconds: Int64) {
        let counter = requestCounters.counter(RequestKey(route: route, method: method, status: status)) {
            let requests = MetricNameDescriptor(
                namespace: "timeline_sync", metricName: "requests", unitName: "total", helpText: "Requests answered.")
            return registry.makeCounter(descriptor: requests, labels: [("route", route), ("method", method), ("status", String(status))])
        }
        counter.increment()
        durations.recordNanoseconds(nanoseconds)
    }

    /// Each request counter, found once in the registry and kept: a lookup there builds its
    /// name and labels again.
    private let requestCounters = RequestCounters()

    /// A merge of `writes` heads, of which `changed` replaced the stored one.
    public func merge(writes: Int, changed: Int) {
        merged.increment(by: Int64(changed))
        rejected.increment(by: Int64(max(0, writes - changed)))
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
    private let counters = Locked<[RequestKey: Counter]>([:])

    /// At most this many are kept (methods are the client's to choose); others are looked up
    /// in the registry each time.
    static let capacity = 256

    /// The counter of `key`, made by `make` the first time.
    func counter(_ key: RequestKey, make: () -> Counter) -> Counter {
        counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = make()
            if counters.count < Self.capacity { counters[key] = counter }
            return counter
        }
    }
}
#endif
