import Foundation

/// Renders a comparison report as one self-contained HTML page: the tables, and SVG charts of
/// accuracy by pipeline, accuracy by tag and latency. No scripts, fonts or other files; it
/// opens offline in any browser.
public enum ReportHTML {
    static let palette = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"]

    public static func render(_ report: ComparisonReport, title: String = "TimelineEngine: strategy comparison") -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>\(escape(title))</title>
            <style>
            body { font: 14px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; padding: 0 1em; }
            h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
            table { border-collapse: collapse; margin: 0.5em 0 1em; }
            th, td { padding: 0.25em 0.6em; border-bottom: 1px solid #ddd; text-align: right; white-space: nowrap; }
            th:first-child, td:first-child { text-align: left; }
            td.spec { text-align: left; font-family: ui-monospace, Menlo, monospace; font-size: 0.9em; white-space: normal; }
            svg text { font: 12px -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; fill: #222; }
            .note { color: #555; }
            </style>
            </head>
            <body>
            <h1>\(escape(title))</h1>
            <p>\(escape(ReportTable.headline(report)))</p>

            """
        html += "<h2>Accuracy by pipeline</h2>\n" + accuracyChart(report)
        html += "<h2>All restore points</h2>\n" + table(rows: report.pipelines.map { ($0.name, $0.all.summary) })
        if report.hasSync {
            html +=
                "<h2>Sync <span class=\"note\">(sessions on several devices)</span></h2>\n"
                + table(rows: report.pipelines.map { ($0.name, $0.all.summary) }, columns: ReportColumns.sync)
        }
        if report.hasReach {
            html +=
                "<h2>Reaching posts the cache lacked <span class=\"note\">(devices with caches of their own)</span></h2>\n"
                + table(rows: report.pipelines.map { ($0.name, $0.all.summary) }, columns: ReportColumns.reach)
        }
        html += "<h2>Accuracy by tag (within1)</h2>\n" + tagChart(report)
        html += "<h2>Latency <span class=\"note\">(per restore, logarithmic scale)</span></h2>\n" + latencyChart(report)
        html += "<h2>Pipelines</h2>\n<table>\n<tr><th>name</th><th>pipeline</th></tr>\n"
        for pipeline in report.pipelines {
            html += "<tr><td>\(escape(pipeline.name))</td><td class=\"spec\">\(escape(pipeline.pipeline))</td></tr>\n"
        }
        html += "</table>\n"
        for tag in report.tags {
            let count = report.pipelines.first?.byTag[tag].map { $0.restorePoints + $0.unscored } ?? 0
            html += "<h2>Tag \(escape(tag)) <span class=\"note\">(\(count) restore points)</span></h2>\n"
            let rows = report.pipelines.map { ($0.name, ($0.byTag[tag] ?? MetricsAccumulator()).summary) }
            html += table(rows: rows)
            if report.pipelines.contains(where: { $0.byTag[tag]?.hasSync == true }) { html += table(rows: rows, columns: ReportColumns.sync) }
            if report.pipelines.contains(where: { $0.byTag[tag]?.hasReach == true }) { html += table(rows: rows, columns: ReportColumns.reach) }
        }
        html += """
            <p class="note">exact: the restored post is the expected one. within1: at most one post away. |idx err|: mean
            distance in posts. skipped / re-read: posts the reader would skip (landing below) or read again (landing above).
            px: distance from the expected scroll position, where the session gives it. Brier: mean squared difference between
            the confidence and exact (0 is best). Latency: the pipeline alone, per restore.
            Sync (sessions on several devices): switches: restore points after the reader was last active on another
            device, and switch exact their exact rate. synced: restore points that took another device's position; back
            jumps: those that landed farther from the expected post than this device's own position would have. writes:
            positions saved that reached every device, with the median and p90 seconds until every device held the same
            winner; unconverged: writes that had not when the session ended.
            Reaching posts (devices with caches of their own): reaches: restore points whose post the device had not
            loaded; reached: the share the reach strategy fetched; exact and within1: the rates there, where the post still existed; requests beyond the head page (median, mean) and KB per
            such point; checks: restore points whose post the cache held where the last refresh did not reach, checked to
            still exist (one request each).</p>
            </body>
            </html>

            """
        return html
    }

    static func table(rows: [(String, MetricsSummary)], columns: [ReportColumns.Column] = ReportColumns.all) -> String {
        var html = "<table>\n<tr><th>pipeline</th>" + columns.map { "<th>\(escape($0.heading))</th>" }.joined() + "</tr>\n"
        for (name, summary) in rows {
            html += "<tr><td>\(escape(name))</td>" + columns.map { "<td>\(escape($0.cell(summary)))</td>" }.joined() + "</tr>\n"
        }
        return html + "</table>\n"
    }

    /// Horizontal bars: exact and within1 for each pipeline.
    static func accuracyChart(_ report: ComparisonReport) -> String {
        let label = 170.0
        let plot = 560.0
        let bar = 12.0
        let group = 34.0
        let axisY = 12 + group * Double(report.pipelines.count)
        let height = axisY + 44
        var svg = svgOpen(width: label + plot + 80, height: height, title: "exact and within1 rate by pipeline")
        svg += axis(x: label, width: plot, y: axisY)
        for (row, pipeline) in report.pipelines.enumerated() {
            let summary = pipeline.all.summary
            let top = 10 + group * Double(row)
            svg += text(x: label - 8, y: top + bar + 3, anchor: "end", pipeline.name)
            for (offset, (value, color)) in [(summary.exact, palette[0]), (summary.within1, palette[1])].enumerated() {
                let y = top + Double(offset) * (bar + 2)
                let width = plot * (value ?? 0)
                svg += "<rect x=\"\(f(label))\" y=\"\(f(y))\" width=\"\(f(width))\" height=\"\(f(bar))\" fill=\"\(color)\"/>\n"
                svg += text(x: label + width + 4, y: y + bar - 2, anchor: "start", ReportColumns.rate(value))
            }
        }
        svg += legend(["exact", "within1"], x: label, y: axisY + 36)
        return svg + "</svg>\n"
    }

    /// Grouped bars: within1 for each tag, one bar per pipeline.
    static func tagChart(_ report: ComparisonReport) -> String {
        let tags = report.tags
        let label = 120.0
        let plot = 600.0
        let bar = 9.0
        let group = bar * Double(report.pipelines.count) + 14
        let height = 40 + group * Double(tags.count) + 16 * Double((report.pipelines.count + 3) / 4)
        var svg = svgOpen(width: label + plot + 80, height: height, title: "within1 rate by tag and pipeline")
        let axisY = 10 + group * Double(tags.count)
        svg += axis(x: label, width: plot, y: axisY)
        for (row, tag) in tags.enumerated() {
            let top = 10 + group * Double(row)
            svg += text(x: label - 8, y: top + group / 2, anchor: "end", tag)
            for (position, pipeline) in report.pipelines.enumerated() {
                let value = pipeline.byTag[tag]?.summary.within1 ?? 0
                let y = top + bar * Double(position)
                svg +=
                    "<rect x=\"\(f(label))\" y=\"\(f(y))\" width=\"\(f(plot * value))\" height=\"\(f(bar - 1))\" fill=\"\(palette[position % palette.count])\"><title>\(escape(pipeline.name)): \(ReportColumns.rate(value))</title></rect>\n"
            }
        }
        svg += legend(report.pipelines.map(\.name), x: label, y: axisY + 34)
        return svg + "</svg>\n"
    }

    /// Horizontal bars of p50 and p99 latency per pipeline, on a logarithmic scale.
    static func latencyChart(_ report: ComparisonReport) -> String {
        let label = 170.0
        let plot = 560.0
        let bar = 12.0
        let group = 34.0
        let values = report.pipelines.flatMap { [$0.all.summary.latencyP50, $0.all.summary.latencyP99] }.compactMap { $0 }
        let high = max(10, values.max() ?? 10)
        let low = max(0.01, min(0.1, values.filter { $0 > 0 }.min() ?? 0.1))
        let decades = log10(high / low)
        func width(_ value: Double) -> Double { value <= low ? 1 : plot * log10(value / low) / decades }
        let height = 30 + group * Double(report.pipelines.count)
        var svg = svgOpen(width: label + plot + 110, height: height, title: "pipeline latency in microseconds, log scale")
        for (row, pipeline) in report.pipelines.enumerated() {
            let summary = pipeline.all.summary
            let top = 10 + group * Double(row)
            svg += text(x: label - 8, y: top + bar + 3, anchor: "end", pipeline.name)
            for (offset, (value, color)) in [(summary.latencyP50, palette[2]), (summary.latencyP99, palette[3])].enumerated() {
                let y = top + Double(offset) * (bar + 2)
                let w = width(value ?? 0)
                svg += "<rect x=\"\(f(label))\" y=\"\(f(y))\" width=\"\(f(w))\" height=\"\(f(bar))\" fill=\"\(color)\"/>\n"
                svg += text(x: label + w + 4, y: y + bar - 2, anchor: "start", value.map { String(format: "%.1f µs", $0) } ?? "-")
            }
        }
        svg += legend(["p50", "p99"], x: label, y: height - 8, colors: [palette[2], palette[3]])
        return svg + "</svg>\n"
    }

    static func svgOpen(width: Double, height: Double, title: String) -> String {
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(f(width))\" height=\"\(f(height))\" viewBox=\"0 0 \(f(width)) \(f(height))\" role=\"img\"><title>\(escape(title))</title>\n"
    }

    static func axis(x: Double, width: Double, y: Double) -> String {
        var svg = "<line x1=\"\(f(x))\" y1=\"\(f(y))\" x2=\"\(f(x + width))\" y2=\"\(f(y))\" stroke=\"#999\"/>\n"
        for step in 0...4 {
            let tickX = x + width * Double(step) / 4
            svg += "<line x1=\"\(f(tickX))\" y1=\"0\" x2=\"\(f(tickX))\" y2=\"\(f(y))\" stroke=\"#eee\"/>\n"
            svg += text(x: tickX, y: y + 14, anchor: "middle", String(format: "%.2f", Double(step) / 4))
        }
        return svg
    }

    static func legend(_ names: [String], x: Double, y: Double, colors: [String]? = nil) -> String {
        var svg = ""
        for (position, name) in names.enumerated() {
            let itemX = x + Double(position % 4) * 150
            let itemY = y + Double(position / 4) * 16
            let color = colors?[position] ?? palette[position % palette.count]
            svg += "<rect x=\"\(f(itemX))\" y=\"\(f(itemY - 9))\" width=\"10\" height=\"10\" fill=\"\(color)\"/>\n"
            svg += text(x: itemX + 14, y: itemY, anchor: "start", name)
        }
        return svg
    }

    static func text(x: Double, y: Double, anchor: String, _ content: String) -> String {
        "<text x=\"\(f(x))\" y=\"\(f(y))\" text-anchor=\"\(anchor)\">\(escape(content))</text>\n"
    }

    static func f(_ value: Double) -> String { String(format: "%.1f", value) }

    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }
}
