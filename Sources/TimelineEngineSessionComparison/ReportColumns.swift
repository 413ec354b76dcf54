import Foundation

/// The columns every rendering of a report shows, with their headings and number formats, so
/// that the table, CSV and HTML agree.
enum ReportColumns {
    struct Column: Sendable {
        var heading: String
        var csvName: String
        /// Decimal places in the table; nil for counts.
        var places: Int?
        var value: @Sendable (MetricsSummary) -> Double?

        /// The table's cell: rounded, `-` when there is nothing to show.
        func cell(_ summary: MetricsSummary) -> String {
            guard let number = value(summary) else { return "-" }
            guard let places else { return String(Int(number)) }
            return String(format: "%.\(places)f", number)
        }

        /// The CSV field: full precision, empty when there is nothing to show.
        func raw(_ summary: MetricsSummary) -> String {
            guard let number = value(summary) else { return "" }
            return places == nil ? String(Int(number)) : "\(number)"
        }
    }

    /// A rate with three decimals, or `-`.
    static func rate(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "-" }

    static let all: [Column] = [
        Column(heading: "points", csvName: "restorePoints", places: nil) { Double($0.restorePoints) },
        Column(heading: "exact", csvName: "exact", places: 3) { $0.exact },
        Column(heading: "within1", csvName: "within1", places: 3) { $0.within1 },
        Column(heading: "no answer", csvName: "noAnswers", places: nil) { Double($0.noAnswers) },
        Column(heading: "|idx err|", csvName: "meanAbsIndexError", places: 2) { $0.meanAbsIndexError },
        Column(heading: "skipped", csvName: "skipped", places: nil) { Double($0.skipped) },
        Column(heading: "re-read", csvName: "reread", places: nil) { Double($0.reread) },
        Column(heading: "px p50", csvName: "pixelErrorMedian", places: 1) { $0.pixelErrorMedian },
        Column(heading: "px p90", csvName: "pixelErrorP90", places: 1) { $0.pixelErrorP90 },
        Column(heading: "Brier", csvName: "brier", places: 3) { $0.brier },
        Column(heading: "p50 µs", csvName: "latencyP50Microseconds", places: 1) { $0.latencyP50 },
        Column(heading: "p99 µs", csvName: "latencyP99Microseconds", places: 1) { $0.latencyP99 },
    ]

    /// The sync figures, shown when sessions on several devices were compared.
    static let sync: [Column] = [
        Column(heading: "switches", csvName: "switchPoints", places: nil) { Double($0.switchPoints) },
        Column(heading: "switch exact", csvName: "switchExact", places: 3) { $0.switchExact },
        Column(heading: "synced", csvName: "syncedPoints", places: nil) { Double($0.syncedPoints) },
        Column(heading: "back jumps", csvName: "backJumps", places: nil) { Double($0.backJumps) },
        Column(heading: "prompts", csvName: "prompts", places: nil) { Double($0.prompts) },
        Column(heading: "phantom", csvName: "phantomPrompts", places: nil) { Double($0.phantomPrompts) },
        Column(heading: "diverged", csvName: "divergentPoints", places: nil) { Double($0.divergentPoints) },
        Column(heading: "missed", csvName: "missedDivergences", places: nil) { Double($0.missedDivergences) },
        Column(heading: "writes", csvName: "convergedWrites", places: nil) { Double($0.convergedWrites) },
        Column(heading: "converge p50 s", csvName: "convergenceP50Seconds", places: 1) { $0.convergenceP50 },
        Column(heading: "converge p90 s", csvName: "convergenceP90Seconds", places: 1) { $0.convergenceP90 },
        Column(heading: "unconverged", csvName: "unconvergedWrites", places: nil) { Double($0.unconverged) },
    ]

    /// The unread count's figures, shown when sessions give its truth.
    static let unread: [Column] = [
        Column(heading: "points", csvName: "unreadPoints", places: nil) { Double($0.unreadPoints) },
        Column(heading: "exact", csvName: "unreadExact", places: 3) { $0.unreadExact },
        Column(heading: "mean |error|", csvName: "unreadMeanAbsoluteError", places: 2) { $0.unreadMeanAbsoluteError },
    ]

    /// The loading figures, shown when devices with caches of their own reached posts.
    static let reach: [Column] = [
        Column(heading: "reaches", csvName: "reachPoints", places: nil) { Double($0.reachPoints) },
        Column(heading: "reached", csvName: "reachReached", places: 3) { $0.reachReached },
        Column(heading: "exact", csvName: "reachExact", places: 3) { $0.reachExact },
        Column(heading: "within1", csvName: "reachWithin1", places: 3) { $0.reachWithin1 },
        Column(heading: "requests p50", csvName: "reachRequestsMedian", places: 1) { $0.reachRequestsP50 },
        Column(heading: "requests p90", csvName: "reachRequestsP90", places: 1) { $0.reachRequestsP90 },
        Column(heading: "requests mean", csvName: "reachRequestsMean", places: 2) { $0.reachRequestsMean },
        Column(heading: "KB mean", csvName: "reachKilobytesMean", places: 1) { $0.reachKilobytesMean },
        Column(heading: "misses", csvName: "reachMisses", places: nil) { Double($0.reachMisses) },
        Column(heading: "checks", csvName: "checks", places: nil) { Double($0.checks) },
    ]

    /// The columns of a report: the sync figures too when it has any.
    static func columns(for report: ComparisonReport) -> [Column] {
        all + (report.hasSync ? sync : []) + (report.hasUnread ? unread : []) + (report.hasReach ? reach : [])
    }
}

/// Renders a comparison report as aligned text: the totals, then the same by tag.
public enum ReportTable {
    public static func render(_ report: ComparisonReport) -> String {
        var text = headline(report) + "\n\n"
        text += table(rows: report.pipelines.map { ($0.name, $0.all.summary) })
        if report.hasSync {
            text += "\nSync:\n" + table(rows: report.pipelines.map { ($0.name, $0.all.summary) }, columns: ReportColumns.sync)
        }
        if report.hasUnread {
            text +=
                "\nNew above the reader (\"N new above you\"):\n"
                + table(rows: report.pipelines.map { ($0.name, $0.all.summary) }, columns: ReportColumns.unread)
        }
        if report.hasReach {
            text +=
                "\nReaching posts the cache lacked:\n" + table(rows: report.pipelines.map { ($0.name, $0.all.summary) }, columns: ReportColumns.reach)
        }
        text += "\nPipelines:\n"
        let width = report.pipelines.map(\.name.count).max() ?? 0
        for pipeline in report.pipelines {
            text += "  " + pipeline.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + pipeline.pipeline + "\n"
        }
        for tag in report.tags {
            let count = report.pipelines.first?.byTag[tag].map { $0.restorePoints + $0.unscored } ?? 0
            text += "\nTag \(tag) (\(count) restore point\(count == 1 ? "" : "s")):\n"
            let rows = report.pipelines.map { ($0.name, ($0.byTag[tag] ?? MetricsAccumulator()).summary) }
            text += table(rows: rows)
            if report.pipelines.contains(where: { $0.byTag[tag]?.hasSync == true }) {
                text += "\nSync, tag \(tag):\n" + table(rows: rows, columns: ReportColumns.sync)
            }
            if report.pipelines.contains(where: { $0.byTag[tag]?.unreadPoints ?? 0 > 0 }) {
                text += "\nNew above the reader, tag \(tag):\n" + table(rows: rows, columns: ReportColumns.unread)
            }
            if report.pipelines.contains(where: { $0.byTag[tag]?.hasReach == true }) {
                text += "\nReaching posts, tag \(tag):\n" + table(rows: rows, columns: ReportColumns.reach)
            }
        }
        return text
    }

    /// `Compared N sessions (…), M restore points, K pipelines.`
    public static func headline(_ report: ComparisonReport) -> String {
        var parts = ["\(report.sessionsRead) session\(report.sessionsRead == 1 ? "" : "s")"]
        if report.sessionsFailed > 0 { parts.append("\(report.sessionsFailed) left out") }
        if report.warnings > 0 { parts.append("\(report.warnings) warning\(report.warnings == 1 ? "" : "s")") }
        if !report.shards.isEmpty { parts.append("shards \(report.shards.joined(separator: ", "))") }
        let points = report.restorePointCount
        let pipelines = report.pipelines.count
        return
            "Compared \(parts.joined(separator: ", ")): \(points) restore point\(points == 1 ? "" : "s"), \(pipelines) pipeline\(pipelines == 1 ? "" : "s")."
    }

    static func table(rows: [(String, MetricsSummary)], columns: [ReportColumns.Column] = ReportColumns.all) -> String {
        let headings = ["pipeline"] + columns.map(\.heading)
        let cells = rows.map { row in [row.0] + columns.map { $0.cell(row.1) } }
        let widths = headings.indices.map { column in ([headings[column]] + cells.map { $0[column] }).map(\.count).max() ?? 0 }
        func line(_ values: [String]) -> String {
            values.enumerated().map { column, value in
                let pad = String(repeating: " ", count: widths[column] - value.count)
                return column == 0 ? value + pad : pad + value
            }.joined(separator: "  ") + "\n"
        }
        return line(headings) + cells.map(line).joined()
    }
}

/// Renders a comparison report as CSV (RFC 4180): one row per pipeline for all restore points
/// (tag `all`), then one per pipeline and tag.
public enum ReportCSV {
    public static func render(_ report: ComparisonReport) -> String {
        let columns = ReportColumns.columns(for: report)
        var text = (["pipeline", "spec", "tag"] + columns.map(\.csvName) + ["unscored"]).joined(separator: ",") + "\r\n"
        func row(_ pipeline: PipelineResults, _ tag: String, _ summary: MetricsSummary) {
            let values =
                [pipeline.name, pipeline.pipeline, tag] + columns.map { $0.raw(summary) }
                + ["\(summary.unscored)"]
            text += values.map(field).joined(separator: ",") + "\r\n"
        }
        for pipeline in report.pipelines { row(pipeline, "all", pipeline.all.summary) }
        for tag in report.tags {
            for pipeline in report.pipelines { row(pipeline, tag, (pipeline.byTag[tag] ?? MetricsAccumulator()).summary) }
        }
        return text
    }

    static func field(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
