import TimelineEngineSessionReplay
import TimelineEngineValueTree

/// One pipeline's accumulated results: over all restore points and per tag.
public struct PipelineResults: Sendable, Equatable {
    public var name: String
    /// The pipeline in spec notation.
    public var pipeline: String
    public var all = MetricsAccumulator()
    public var byTag: [String: MetricsAccumulator] = [:]

    public init(name: String, pipeline: String) {
        self.name = name
        self.pipeline = pipeline
    }

    public mutating func add(_ evaluation: RestoreEvaluation, tag: String) {
        all.add(evaluation)
        byTag[tag, default: MetricsAccumulator()].add(evaluation)
    }

    /// Records the convergence of one write: `seconds` until every device held the same winner,
    /// or nil when it never did; under `tag`, the tag of the restore point that followed the
    /// write (nil when none did: then only in the totals).
    public mutating func addConvergence(seconds: Double?, tag: String?) {
        func add(_ accumulator: inout MetricsAccumulator) {
            if let seconds { accumulator.addConvergence(seconds: seconds) } else { accumulator.unconverged += 1 }
        }
        add(&all)
        if let tag { add(&byTag[tag, default: MetricsAccumulator()]) }
    }

    public mutating func merge(_ other: PipelineResults) {
        all.merge(other.all)
        for (tag, accumulator) in other.byTag { byTag[tag, default: MetricsAccumulator()].merge(accumulator) }
    }
}

/// The result of `engine compare`: every pipeline's totals and per-tag rows, and what was read.
/// Reports of disjoint shards merge into exactly the report of a single run (latencies aside,
/// which are measured anew on every run).
public struct ComparisonReport: Sendable, Equatable {
    /// The tags the simulator writes, in the order reports list them; other tags follow
    /// alphabetically.
    public static let knownTags = [
        "present", "refresh", "deleted", "redrafted", "relaunch-soft", "relaunch-hard", "algorithmic", "paused",
        "device-switch", "two-devices", "offline-day", "clock-fast", "stale-device", "scroll-back",
    ]

    public var pipelines: [PipelineResults]
    public var sessionsRead = 0
    /// Sessions left out because their header was missing or invalid.
    public var sessionsFailed = 0
    public var warnings = 0
    /// The shards this report covers; empty for a whole run.
    public var shards: [String] = []

    public init(pipelines: [PipelineResults]) {
        self.pipelines = pipelines
    }

    /// Every tag seen, in report order.
    public var tags: [String] {
        var all = Set<String>()
        for pipeline in pipelines { all.formUnion(pipeline.byTag.keys) }
        let known = ComparisonReport.knownTags.filter(all.contains)
        return known + all.subtracting(known).sorted()
    }

    /// Whether any pipeline recorded sync figures (sessions on several devices).
    /// Whether any session gave the unread count's truth: the report then shows its figures.
    public var hasUnread: Bool {
        pipelines.contains { $0.all.unreadPoints > 0 }
    }

    public var hasReach: Bool {
        pipelines.contains { $0.all.hasReach }
    }

    public var hasSync: Bool {
        pipelines.contains { $0.all.hasSync }
    }

    /// Restore points seen (scored or not) by the first pipeline; every pipeline sees the same.
    public var restorePointCount: Int {
        pipelines.first.map { $0.all.restorePoints + $0.all.unscored } ?? 0
    }

    /// Adds another report's counts. Throws when the two compared different pipelines.
    public mutating func merge(_ other: ComparisonReport) throws(ComparisonReportError) {
        guard pipelines.map(\.name) == other.pipelines.map(\.name), pipelines.map(\.pipeline) == other.pipelines.map(\.pipeline) else {
            throw ComparisonReportError("the reports compare different pipelines: \(pipelines.map(\.name)) and \(other.pipelines.map(\.name))")
        }
        for position in pipelines.indices { pipelines[position].merge(other.pipelines[position]) }
        sessionsRead += other.sessionsRead
        sessionsFailed += other.sessionsFailed
        warnings += other.warnings
        shards += other.shards
    }
}

/// A report that cannot be read or merged.
public struct ComparisonReportError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
