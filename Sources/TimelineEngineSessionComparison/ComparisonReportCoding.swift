import TimelineEngineValueTree

/// The JSON form of a comparison report: the figures per pipeline and per tag under the field
/// names the documentation uses, plus the raw accumulators that `engine compare --merge` adds up.
public enum ComparisonReportCoding {
    public static let formatName = "timeline-engine-comparison"
    public static let version = 1

    public static func value(of report: ComparisonReport) -> Value {
        let tags = report.tags
        return .dictionary([
            ("format", .string(formatName)), ("version", .integer(version)),
            (
                "sessions",
                .dictionary([
                    ("read", .integer(report.sessionsRead)), ("failed", .integer(report.sessionsFailed)),
                    ("warnings", .integer(report.warnings)),
                ])
            ),
            ("shards", .array(report.shards.map { .string($0) })),
            ("restorePoints", .integer(report.restorePointCount)),
            (
                "pipelines",
                .array(
                    report.pipelines.map { pipeline in
                        .dictionary([
                            ("name", .string(pipeline.name)), ("pipeline", .string(pipeline.pipeline)),
                            ("totals", summaryValue(pipeline.all.summary)),
                            (
                                "tags",
                                .array(
                                    tags.compactMap { tag in
                                        guard let accumulator = pipeline.byTag[tag] else { return nil }
                                        return summaryValue(accumulator.summary, tag: tag)
                                    })
                            ),
                            (
                                "accumulators",
                                .dictionary([
                                    ("all", accumulatorValue(pipeline.all)),
                                    ("tags", .dictionary(tags.compactMap { tag in pipeline.byTag[tag].map { (tag, accumulatorValue($0)) } })),
                                ])
                            ),
                        ])
                    })
            ),
        ])
    }

    static func summaryValue(_ summary: MetricsSummary, tag: String? = nil) -> Value {
        func number(_ value: Double?) -> Value { value.map { .real($0) } ?? .null }
        var pairs: [(String, Value)] = []
        if let tag { pairs.append(("tag", .string(tag))) }
        pairs += [
            ("restorePoints", .integer(summary.restorePoints)), ("unscored", .integer(summary.unscored)),
            ("exact", number(summary.exact)), ("within1", number(summary.within1)), ("noAnswers", .integer(summary.noAnswers)),
            ("meanAbsIndexError", number(summary.meanAbsIndexError)),
            ("skipped", .integer(summary.skipped)), ("reread", .integer(summary.reread)),
            ("pixelErrorCount", .integer(summary.pixelErrorCount)),
            ("pixelErrorMedian", number(summary.pixelErrorMedian)), ("pixelErrorP90", number(summary.pixelErrorP90)),
            ("brier", number(summary.brier)),
            ("latencyP50Microseconds", number(summary.latencyP50)), ("latencyP99Microseconds", number(summary.latencyP99)),
            ("switchPoints", .integer(summary.switchPoints)), ("switchExact", number(summary.switchExact)),
            ("syncedPoints", .integer(summary.syncedPoints)), ("backJumps", .integer(summary.backJumps)),
            ("prompts", .integer(summary.prompts)), ("phantomPrompts", .integer(summary.phantomPrompts)),
            ("divergentPoints", .integer(summary.divergentPoints)), ("missedDivergences", .integer(summary.missedDivergences)),
            ("promptedDivergences", number(summary.promptedDivergences)), ("plainSwitchPrompts", number(summary.plainSwitchPrompts)),
            ("unreadPoints", .integer(summary.unreadPoints)), ("unreadExact", number(summary.unreadExact)),
            ("unreadMeanAbsoluteError", number(summary.unreadMeanAbsoluteError)),
            ("convergedWrites", .integer(summary.convergedWrites)),
            ("convergenceP50Seconds", number(summary.convergenceP50)), ("convergenceP90Seconds", number(summary.convergenceP90)),
            ("unconvergedWrites", .integer(summary.unconverged)),
            ("reachPoints", .integer(summary.reachPoints)), ("reachReached", number(summary.reachReached)),
            ("reachExact", number(summary.reachExact)), ("reachWithin1", number(summary.reachWithin1)),
            ("reachRequestsMedian", number(summary.reachRequestsP50)), ("reachRequestsP90", number(summary.reachRequestsP90)),
            ("reachRequestsMean", number(summary.reachRequestsMean)),
            ("reachKilobytesMean", number(summary.reachKilobytesMean)), ("reachMisses", .integer(summary.reachMisses)),
            ("checks", .integer(summary.checks)), ("checkRequests", .integer(summary.checkRequests)),
        ]
        return .dictionary(pairs)
    }

    static func accumulatorValue(_ accumulator: MetricsAccumulator) -> Value {
        func histogram(_ histogram: Histogram) -> Value {
            .array(histogram.counts.keys.sorted().map { .array([.integer($0), .integer(histogram.counts[$0]!)]) })
        }
        return .dictionary([
            ("restorePoints", .integer(accumulator.restorePoints)), ("unscored", .integer(accumulator.unscored)),
            ("exact", .integer(accumulator.exact)), ("within1", .integer(accumulator.within1)),
            ("noAnswers", .integer(accumulator.noAnswers)),
            ("absoluteIndexError", .integer(accumulator.absoluteIndexError)), ("skipped", .integer(accumulator.skipped)),
            ("reread", .integer(accumulator.reread)), ("brier", .integer(Int(accumulator.brier))),
            ("pixelError", histogram(accumulator.pixelError)), ("latency", histogram(accumulator.latency)),
            ("switchPoints", .integer(accumulator.switchPoints)), ("switchExact", .integer(accumulator.switchExact)),
            ("syncedPoints", .integer(accumulator.syncedPoints)), ("backJumps", .integer(accumulator.backJumps)),
            ("prompts", .integer(accumulator.prompts)), ("phantomPrompts", .integer(accumulator.phantomPrompts)),
            ("divergentPoints", .integer(accumulator.divergentPoints)), ("missedDivergences", .integer(accumulator.missedDivergences)),
            ("plainSwitches", .integer(accumulator.plainSwitches)), ("plainSwitchPrompts", .integer(accumulator.plainSwitchPrompts)),
            ("unreadPoints", .integer(accumulator.unreadPoints)), ("unreadExact", .integer(accumulator.unreadExact)),
            ("unreadAbsoluteError", .integer(accumulator.unreadAbsoluteError)),
            ("convergence", histogram(accumulator.convergence)), ("unconverged", .integer(accumulator.unconverged)),
            ("reachPoints", .integer(accumulator.reachPoints)), ("reachReached", .integer(accumulator.reachReached)),
            ("reachScored", .integer(accumulator.reachScored)), ("reachExact", .integer(accumulator.reachExact)),
            ("reachWithin1", .integer(accumulator.reachWithin1)),
            ("reachRequests", .integer(accumulator.reachRequests)), ("reachBytes", .integer(accumulator.reachBytes)),
            ("reachRequestCounts", histogram(accumulator.reachRequestCounts)), ("reachMisses", .integer(accumulator.reachMisses)),
            ("checks", .integer(accumulator.checks)), ("checkRequests", .integer(accumulator.checkRequests)),
        ])
    }

    /// Reads a report written by `value(of:)` (what `engine compare --format json` prints).
    public static func report(from value: Value) throws(ComparisonReportError) -> ComparisonReport {
        guard value["format"]?.stringValue == formatName else {
            throw ComparisonReportError(
                "not a comparison report: expected \"format\": \"\(formatName)\" (write one with engine compare --format json)")
        }
        guard value["version"]?.numberValue == Double(version) else {
            throw ComparisonReportError("unsupported comparison report version \(value["version"]?.description ?? "(none)")")
        }
        guard let pipelineValues = value["pipelines"]?.arrayValue else { throw ComparisonReportError("the report has no \"pipelines\"") }
        var pipelines: [PipelineResults] = []
        for pipelineValue in pipelineValues {
            guard let name = pipelineValue["name"]?.stringValue, let spec = pipelineValue["pipeline"]?.stringValue,
                let accumulators = pipelineValue["accumulators"]
            else {
                throw ComparisonReportError("a pipeline entry lacks \"name\", \"pipeline\" or \"accumulators\"")
            }
            var results = PipelineResults(name: name, pipeline: spec)
            guard let all = accumulators["all"] else { throw ComparisonReportError("pipeline \(name): \"accumulators\" lacks \"all\"") }
            results.all = try accumulator(from: all, in: name)
            for (tag, member) in accumulators["tags"]?.dictionaryValue ?? [:] {
                results.byTag[tag.string] = try accumulator(from: member.value, in: name)
            }
            pipelines.append(results)
        }
        var report = ComparisonReport(pipelines: pipelines)
        report.sessionsRead = Int(value["sessions"]?["read"]?.numberValue ?? 0)
        report.sessionsFailed = Int(value["sessions"]?["failed"]?.numberValue ?? 0)
        report.warnings = Int(value["sessions"]?["warnings"]?.numberValue ?? 0)
        report.shards = value["shards"]?.arrayValue?.compactMap(\.stringValue) ?? []
        return report
    }

    static func accumulator(from value: Value, in pipeline: String) throws(ComparisonReportError) -> MetricsAccumulator {
        func integer(_ key: String) throws(ComparisonReportError) -> Int {
            guard let number = value[key]?.numberValue, number == number.rounded(), number >= 0, number < 9e18 else {
                throw ComparisonReportError("pipeline \(pipeline): accumulator field \(Value.quote(key)) must be a non-negative integer")
            }
            return Int(number)
        }
        func histogram(_ key: String) throws(ComparisonReportError) -> Histogram {
            var counts: [Int: Int] = [:]
            for pair in value[key]?.arrayValue ?? [] {
                guard let items = pair.arrayValue, items.count == 2, let bucket = items[0].numberValue, let count = items[1].numberValue,
                    bucket >= 0, count >= 0, bucket < 1e6, count < 9e18
                else {
                    throw ComparisonReportError("pipeline \(pipeline): \(Value.quote(key)) must be a list of [bucket, count] pairs")
                }
                counts[Int(bucket), default: 0] += Int(count)
            }
            return Histogram(counts: counts)
        }
        var accumulator = MetricsAccumulator()
        accumulator.restorePoints = try integer("restorePoints")
        accumulator.unscored = try integer("unscored")
        accumulator.exact = try integer("exact")
        accumulator.within1 = try integer("within1")
        accumulator.absoluteIndexError = try integer("absoluteIndexError")
        accumulator.skipped = try integer("skipped")
        accumulator.reread = try integer("reread")
        accumulator.brier = Int64(try integer("brier"))
        accumulator.pixelError = try histogram("pixelError")
        accumulator.latency = try histogram("latency")
        // The sync figures came later: a report without them has none.
        func count(_ key: String) throws(ComparisonReportError) -> Int { value[key] == nil ? 0 : try integer(key) }
        accumulator.switchPoints = try count("switchPoints")
        accumulator.switchExact = try count("switchExact")
        accumulator.syncedPoints = try count("syncedPoints")
        accumulator.backJumps = try count("backJumps")
        accumulator.convergence = try histogram("convergence")
        accumulator.unconverged = try count("unconverged")
        // So did the reach figures.
        accumulator.reachPoints = try count("reachPoints")
        accumulator.reachReached = try count("reachReached")
        accumulator.reachScored = try count("reachScored")
        accumulator.reachExact = try count("reachExact")
        accumulator.reachWithin1 = try count("reachWithin1")
        accumulator.reachRequests = try count("reachRequests")
        accumulator.reachBytes = try count("reachBytes")
        accumulator.reachRequestCounts = try histogram("reachRequestCounts")
        accumulator.reachMisses = try count("reachMisses")
        accumulator.checks = try count("checks")
        accumulator.checkRequests = try count("checkRequests")
        // And the points without an answer.
        accumulator.noAnswers = try count("noAnswers")
        // And the prompts.
        accumulator.prompts = try count("prompts")
        accumulator.phantomPrompts = try count("phantomPrompts")
        accumulator.divergentPoints = try count("divergentPoints")
        accumulator.missedDivergences = try count("missedDivergences")
        accumulator.plainSwitches = try count("plainSwitches")
        accumulator.plainSwitchPrompts = try count("plainSwitchPrompts")
        // And the unread count.
        accumulator.unreadPoints = try count("unreadPoints")
        accumulator.unreadExact = try count("unreadExact")
        accumulator.unreadAbsoluteError = try count("unreadAbsoluteError")
        return accumulator
    }
}
