import Foundation
import Testing
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineJSONText
import TimelineEngineRestoration
import TimelineEngineSessionComparison
import TimelineEngineSessionFormat
import TimelineEngineSessionReplay
import TimelineEngineSessionSimulation
import TimelineEngineStrategyKit
import TimelineEngineSupport
import TimelineEngineSyncModel
import TimelineEngineTestSupport
import TimelineEngineValueTree

@Suite(.timeLimit(.minutes(10))) struct HistogramTests {
    @Test func percentilesAreExactBelow128AndWithinPointEightPercentAbove() {
        var histogram = Histogram()
        for value in 1...100 { histogram.record(UInt64(value)) }
        #expect(histogram.quantile(0.5) == 50)
        #expect(histogram.quantile(0.9) == 90)
        #expect(histogram.quantile(1) == 100)
        var large = Histogram()
        for value in stride(from: 1000, through: 1_000_000, by: 997) { large.record(UInt64(value)) }
        // 1,001 values from 1,000 by 997: the 501st is 1,000 + 500 × 997 = 499,500. A bucket is
        // 1/64 of its power of two wide and shown by its middle: at most 1/128 (0.78 %) off.
        let median = Double(large.quantile(0.5)!)
        #expect(abs(median - 499_500) / 499_500 <= 0.008)
        #expect(Histogram().quantile(0.5) == nil)
    }

    @Test func mergingEqualsRecordingEverythingInOne() {
        var whole = Histogram()
        var left = Histogram()
        var right = Histogram()
        for value in 0..<5000 {
            let sample = UInt64((value * 7919) % 100_003)
            whole.record(sample)
            if value % 3 == 0 { left.record(sample) } else { right.record(sample) }
        }
        left.merge(right)
        #expect(left == whole)
    }
}

@Suite(.ownThread, .timeLimit(.minutes(30))) struct ComparisonTests {
    static let sessions = Fixtures.repositoryURL("sessions")

    /// A comparison of the bundled single-device sessions, replayed on a thread of its own: a
    /// replay is long work that must not hold one of the two cooperative threads.
    func run(jobs: Int, shard: Shard? = nil) async throws -> ComparisonReport {
        let candidates = try ComparisonCandidate.candidates(configuration: .defaults, specs: [])
        let runner = ComparisonRunner(candidates: candidates, settings: ReplaySettings(configuration: .defaults), jobs: jobs)
        // The simulated single-device sessions; the multi-device ones (sessions/devices*) have
        // their own tests.
        var files = try SessionFiles.expand([Self.sessions.path]).filter { !$0.contains("/devices") }
        if let shard { files = shard.select(files) }
        let chosen = files
        var report = await runner.run(files: chosen)
        if let shard { report.shards = [shard.description] }
        return report
    }

    /// Everything but the latencies, which are measured anew on each run.
    func withoutLatency(_ report: ComparisonReport) -> ComparisonReport {
        var copy = report
        for position in copy.pipelines.indices {
            copy.pipelines[position].all.latency = Histogram()
            for tag in copy.pipelines[position].byTag.keys { copy.pipelines[position].byTag[tag]!.latency = Histogram() }
        }
        copy.shards = []
        return copy
    }

    @Test func comparesTheConfiguredPipelineTheSingleStrategiesAndTheBaseline() async throws {
        let candidates = try ComparisonCandidate.candidates(configuration: .defaults, specs: [])
        let singles = BuiltInStrategies.registry.types.filter { $0.kind.rawValue == "restoration" && !$0.isComposition }.map(\.name)
        #expect(candidates.map(\.name) == ["configured"] + singles + ["baseline"])
        #expect(candidates[1].pipeline.summary == "\(singles[0]) > Fallback(Mode: NearestContent) | ViewportAnchor")
        #expect(candidates.last?.pipeline.summary == "ExactMatch > Fallback(Mode: TopOfTimeline) | ViewportAnchor")
    }

    @Test func resultsAreTheSameForAnyNumberOfJobsAndForMergedShards() async throws {
        let single = try await run(jobs: 1)
        #expect(single.sessionsRead == 12)
        #expect(withoutLatency(try await run(jobs: 3)) == withoutLatency(single))
        var merged = try await run(jobs: 1, shard: Shard(number: 1, count: 3))
        try merged.merge(try await run(jobs: 2, shard: Shard(number: 2, count: 3)))
        try merged.merge(try await run(jobs: 1, shard: Shard(number: 3, count: 3)))
        #expect(merged.shards == ["1/3", "2/3", "3/3"])
        #expect(withoutLatency(merged) == withoutLatency(single))
    }

    @Test func theJSONReportReadsBackForMerging() async throws {
        let report = try await run(jobs: 2)
        let text = try JSONWriter(style: .pretty).write(ComparisonReportCoding.value(of: report))
        let read = try ComparisonReportCoding.report(from: try JSONReader().read(text))
        #expect(read == report)
        let totals = try JSONReader().read(text)["pipelines"]?.arrayValue?.first?["totals"]
        #expect(
            totals?.dictionaryValue?.keys.elements == [
                "restorePoints", "unscored", "exact", "within1", "noAnswers", "meanAbsIndexError", "skipped", "reread", "pixelErrorCount",
                "pixelErrorMedian", "pixelErrorP90", "brier", "latencyP50Microseconds", "latencyP99Microseconds",
                "switchPoints", "switchExact", "syncedPoints", "backJumps", "prompts", "phantomPrompts", "divergentPoints", "missedDivergences",
                "promptedDivergences", "plainSwitchPrompts", "unreadPoints", "unreadExact", "unreadMeanAbsoluteError", "convergedWrites",
                "convergenceP50Seconds", "convergenceP90Seconds",
                "unconvergedWrites", "reachPoints", "reachReached", "reachExact", "reachWithin1", "reachRequestsMedian", "reachRequestsP90",
                "reachRequestsMean", "reachKilobytesMean", "reachMisses",
                "checks", "checkRequests",
            ])
        #expect(throws: ComparisonReportError.self) { try ComparisonReportCoding.report(from: try JSONReader().read("{\"format\":\"x\"}")) }
    }

    /// A merge policy an app registers itself: LastWriterWins that counts its calls.
    struct CountingPolicy: MergePolicy {
        let name = "CountingLatest"
        let calls: Locked<Int>
        func resolve(_ register: Register) -> Resolution {
            calls.withLock { $0 += 1 }
            guard let winner = register.liveHeads.max(by: { $0.stamp < $1.stamp }) else { return .empty }
            return Resolution(winner: winner, candidates: register.heads, reason: "latest write")
        }
    }

    @Test("the replay builds the merge policy through the runner's registry: an app's own policy is used, with the figures of the one it copies")
    func registeredMergePolicy() async throws {
        let calls = Locked(0)
        let type = StrategyType(name: "CountingLatest", kind: .merge, summary: "LastWriterWins, counted.") { _ in
            .merge(CountingPolicy(calls: calls))
        }
        let registry = try BuiltInStrategies.registry.adding([type])
        let candidates = try ComparisonCandidate.candidates(configuration: .defaults, specs: ["ExactMatch > Fallback"], registry: registry)
        var settings = ReplaySettings(configuration: .defaults)
        settings.mergePolicy = ComponentSpec(name: "CountingLatest")
        let files = (1...4).map { Fixtures.repositoryURL("sessions/devices/devices-000\($0).jsonl").path }
        let counted = await ComparisonRunner(candidates: candidates, settings: settings, jobs: 1, registry: registry).run(files: files)
        #expect(calls.withLock { $0 } > 0)
        settings.mergePolicy = ComponentSpec(name: "LastWriterWins")
        let builtIn = await ComparisonRunner(candidates: candidates, settings: settings, jobs: 1).run(files: files)
        #expect(counted.pipelines[0].all.syncedPoints == builtIn.pipelines[0].all.syncedPoints)
        #expect(counted.pipelines[0].all.switchExact == builtIn.pipelines[0].all.switchExact)
        #expect(counted.pipelines[0].all.backJumps == builtIn.pipelines[0].all.backJumps)
    }

    @Test("variants: every merge policy with every reach strategy, one replay each, their pipelines labelled in one report")
    func variants() async throws {
        let grid = ComparisonVariant.grid(
            mergePolicies: [
                ComparisonVariant(label: "LastWriterWins", mergePolicy: ComponentSpec(name: "LastWriterWins")),
                ComparisonVariant(label: "FurthestRead", mergePolicy: ComponentSpec(name: "FurthestRead")),
            ],
            reaches: [])
        #expect(grid.map { $0?.label } == ["LastWriterWins", "FurthestRead"])
        #expect(ComparisonVariant.grid(mergePolicies: [], reaches: []) == [nil])
        let both = ComparisonVariant.grid(
            mergePolicies: [ComparisonVariant(label: "LastWriterWins", mergePolicy: ComponentSpec(name: "LastWriterWins"))],
            reaches: [ComparisonVariant(label: "CacheOnly", reach: ComponentSpec(name: "CacheOnly"))])
        #expect(
            both == [
                ComparisonVariant(
                    label: "LastWriterWins · CacheOnly", mergePolicy: ComponentSpec(name: "LastWriterWins"),
                    reach: ComponentSpec(name: "CacheOnly"))
            ])
        let candidates = try ComparisonCandidate.candidates(configuration: .defaults, specs: ["ExactMatch > Fallback"])
        let files = (1...4).map { Fixtures.repositoryURL("sessions/devices/devices-000\($0).jsonl").path }
        let runner = ComparisonRunner(candidates: candidates, settings: ReplaySettings(configuration: .defaults), jobs: 1)
        let report = await runner.run(variants: grid, files: files)
        #expect(report.pipelines.count == 2 * candidates.count)
        #expect(report.pipelines.map(\.name).filter { $0.hasSuffix(" · LastWriterWins") }.count == candidates.count)
        // Each variant's figures are those of a run with its policy configured.
        var settings = ReplaySettings(configuration: .defaults)
        settings.mergePolicy = ComponentSpec(name: "LastWriterWins")
        let alone = await ComparisonRunner(candidates: candidates, settings: settings, jobs: 1).run(files: files)
        #expect(report.pipelines[0].all.backJumps == alone.pipelines[0].all.backJumps)
        #expect(report.pipelines[0].all.syncedPoints == alone.pipelines[0].all.syncedPoints)
    }

    @Test("a merge policy the replay cannot build fails each session with its name, and is not replaced by none")
    func unbuildableMergePolicy() async throws {
        let candidates = try ComparisonCandidate.candidates(configuration: .defaults, specs: ["ExactMatch > Fallback"])
        var settings = ReplaySettings(configuration: .defaults)
        settings.mergePolicy = ComponentSpec(name: "LastWriterWin")
        let file = Fixtures.repositoryURL("sessions/devices/devices-0001.jsonl").path
        let issues = Locked<[String]>([])
        let report = await ComparisonRunner(candidates: candidates, settings: settings, jobs: 1)
            .run(files: [file], diagnostics: { _, found in issues.withLock { $0 += found.map(\.description) } })
        #expect(report.sessionsFailed == 1)
        #expect(report.sessionsRead == 0)
        #expect(
            issues.withLock { $0 } == [
                #"\#(file): error: cannot replay: unknown merge policy "LastWriterWin"; did you mean "LastWriterWins"? Registered: CausalFurthest, FurthestRead, FurthestWithPrompt, LastWriterWins, MarkerArrival, NewerForwardOnly, Overwrite, WallClock"#
            ])
    }

    @Test("the sync figures of multi-device sessions: counted, the same for any jobs, and kept through JSON")
    func syncFigures() async throws {
        let candidates = try ComparisonCandidate.candidates(configuration: .defaults, specs: ["ExactMatch > Fallback"])
        var settings = ReplaySettings(configuration: .defaults)
        settings.mergePolicy = ComponentSpec(name: "LastWriterWins")
        let files = (1...4).map { Fixtures.repositoryURL("sessions/devices/devices-000\($0).jsonl").path }
        let runner = ComparisonRunner(candidates: candidates, settings: settings, jobs: 1)
        let report = await runner.run(files: files)
        let all = report.pipelines[0].all
        #expect(report.hasSync)
        // Five restores follow activity on the other device; two of them land exactly.
        #expect((all.switchPoints, all.switchExact) == (5, 2))
        // Three take the phone's or the laptop's position; the stale laptop's takes the reader back.
        #expect((all.syncedPoints, all.backJumps) == (3, 1))
        #expect(all.convergence.total + all.unconverged == 9)
        #expect(report.pipelines[0].byTag["stale-device"]?.backJumps == 1)
        let parallel = ComparisonRunner(candidates: candidates, settings: settings, jobs: 3)
        #expect(await withoutLatency(parallel.run(files: files)) == withoutLatency(report))
        let text = try JSONWriter(style: .pretty).write(ComparisonReportCoding.value(of: report))
        #expect(try ComparisonReportCoding.report(from: try JSONReader().read(text)) == report)
        // A report written before the sync figures existed reads with none.
        func strip(_ value: Value) -> Value {
            switch value.content {
            case .dictionary(var members):
                for key in [
                    "switchPoints", "switchExact", "syncedPoints", "backJumps", "convergence", "unconverged", "prompts", "phantomPrompts",
                    "divergentPoints", "missedDivergences", "plainSwitches", "plainSwitchPrompts", "unreadPoints", "unreadExact",
                    "unreadAbsoluteError",
                ] {
                    members.removeValue(forKey: key)
                }
                for index in members.values.indices { members.values[index].value = strip(members.values[index].value) }
                return Value(.dictionary(members))
            case .array(let items):
                return .array(items.map(strip))
            default:
                return value
            }
        }
        let read = try ComparisonReportCoding.report(from: strip(try JSONReader().read(text)))
        #expect(!read.pipelines[0].all.hasSync)
        #expect(read.pipelines[0].all.exact == all.exact)
        // Single-device sessions show no sync columns.
        #expect(!ReportCSV.render(try await run(jobs: 1)).contains("switchPoints"))
        #expect(
            ReportCSV.render(report).hasPrefix(
                "pipeline,spec,tag,restorePoints,exact,within1,noAnswers,meanAbsIndexError,skipped,reread,pixelErrorMedian,pixelErrorP90,brier,latencyP50Microseconds,latencyP99Microseconds,switchPoints,switchExact,syncedPoints,backJumps,prompts,phantomPrompts,divergentPoints,missedDivergences,convergedWrites,convergenceP50Seconds,convergenceP90Seconds,unconvergedWrites,unscored\r\n"
            ))
    }

    @Test("the tournament: CausalFurthest holds its bars on every bundled multi-device case, and each peer rule shows the failure it cites")
    func tournament() async throws {
        let configured = Array(try ComparisonCandidate.candidates(configuration: .defaults, specs: []).prefix(1))
        let policies = ["CausalFurthest", "MarkerArrival", "WallClock", "FurthestWithPrompt", "NewerForwardOnly", "Overwrite"]
        let runner = ComparisonRunner(candidates: configured, settings: ReplaySettings(configuration: .defaults), jobs: 2)
        let files = try SessionFiles.expand(
            ["devices", "devices-catching-up", "devices-diverged"].map { Self.sessions.appendingPathComponent($0).path })
        let report = await runner.run(
            variants: policies.map { ComparisonVariant(label: $0, mergePolicy: ComponentSpec(name: $0)) }, files: files)
        var results: [String: PipelineResults] = [:]
        for pipeline in report.pipelines { results[String(pipeline.name.dropFirst("configured · ".count))] = pipeline }
        func tag(_ policy: String, _ tag: String) -> MetricsAccumulator { results[policy]?.byTag[tag] ?? MetricsAccumulator() }
        let causal = try #require(results["CausalFurthest"])
        // The hand-written sync-dropped and sync-late lose their delivery: no policy can land.
        for (name, figures) in causal.byTag where !["sync-dropped", "sync-late"].contains(name) {
            #expect(figures.summary.exact ?? 0 >= 0.98, "CausalFurthest on \(name): \(figures.summary.exact ?? 0)")
        }
        #expect(causal.all.backJumps == 0)
        #expect(causal.all.phantomPrompts == 0)
        #expect(causal.all.divergentPoints >= 10)
        #expect(causal.all.summary.promptedDivergences ?? 0 >= 0.95)
        // "N new above you" counts what every device read: each position carries its reads.
        #expect(causal.all.unreadPoints >= 400)
        #expect(causal.all.summary.unreadExact ?? 0 >= 0.99, "unread exact: \(causal.all.summary.unreadExact ?? 0)")
        // Each peer rule's cited failure.
        #expect(tag("MarkerArrival", "stale-device").backJumps > 0, "mastodon#22721: a stale client drags the reader back")
        #expect(tag("Overwrite", "two-devices").backJumps > 0, "Jellyfin#1459: a device the reader left overwrites with its old position")
        #expect(tag("Overwrite", "stale-device").backJumps > 0, "Pocket Casts#3750")
        #expect(tag("WallClock", "clock-fast").summary.exact ?? 1 <= 0.5, "a laptop an hour fast wins for an hour")
        for rule in ["FurthestWithPrompt", "NewerForwardOnly"] {
            #expect(tag(rule, "device-switch").phantomPrompts > 0, "\(rule): asks though one device did the reading")
            #expect(tag(rule, "scroll-back").summary.exact ?? 1 <= 0.6, "\(rule): a move back is lost")
        }
        // Those that never ask miss every divergence.
        for rule in ["MarkerArrival", "WallClock", "Overwrite"] { #expect(results[rule]?.all.prompts == 0) }
    }

    /// The quality bars of the bundled sessions, held as regression tests.
    @Test func theDefaultPipelineMeetsTheQualityBarsOnTheBundledSessions() async throws {
        let report = try await run(jobs: 2)
        let configured = try #require(report.pipelines.first)
        #expect(configured.byTag["present"]?.summary.exact == 1)
        #expect(configured.byTag["refresh"]?.summary.pixelErrorP90 == 0)
        let within1 = try #require(configured.all.summary.within1)
        #expect(within1 >= 0.95)
        for other in report.pipelines.dropFirst() {
            #expect(within1 > other.all.summary.within1 ?? 1, "configured vs \(other.name)")
        }
    }

    @Test func rendersCSVAndSelfContainedHTML() async throws {
        let report = try await run(jobs: 2)
        let csv = ReportCSV.render(report).components(separatedBy: "\r\n")
        #expect(
            csv[0]
                == "pipeline,spec,tag,restorePoints,exact,within1,noAnswers,meanAbsIndexError,skipped,reread,pixelErrorMedian,pixelErrorP90,brier,latencyP50Microseconds,latencyP99Microseconds,unreadPoints,unreadExact,unreadMeanAbsoluteError,unscored"
        )
        #expect(csv[1].hasPrefix("configured,ExactMatch > ContentSimilarity(Threshold: 0.8) > NeighborAnchor"))
        #expect(csv.count == 1 + report.pipelines.count * (1 + report.tags.count) + 1)
        let html = ReportHTML.render(report)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.components(separatedBy: "<svg ").count == 4)
        #expect(
            !html.contains("http://")
                || html.components(separatedBy: "http://").count - 1 == html.components(separatedBy: "xmlns=\"http://www.w3.org/2000/svg\"").count - 1
        )
        #expect(!html.contains("<script"))
    }
}
