import ArgumentParser
import Foundation
import TimelineEngineKit
import TimelineEngineSessionComparison
import TimelineEngineSessionReplay

/// `engine compare`: replays recorded sessions against candidate pipelines and reports how
/// often each put the reader back on the right post and pixel, and how fast.
struct CompareCommand: AsyncParsableCommand {
    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json, csv, html
    }

    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Compare restoration pipelines on recorded sessions.",
        discussion: """
            Replays every session (a .jsonl file, or every .jsonl file under a directory) once, \
            and at each restore point runs every pipeline on the same input. Without --strategy \
            it compares the configured pipeline, each single strategy followed by the configured \
            Fallback, and the baseline of an app without smart restoration \
            (ExactMatch > Fallback(Mode: TopOfTimeline)).

            Columns: restore points; exact and within1 rates; mean |index error|; posts skipped \
            (landing below the expected post) and re-read (landing above); median and p90 pixel \
            error; Brier score of the confidence against exact; p50 and p99 latency.

            Sessions recorded on several devices (format version 2) replay under the configured \
            Sync.Policy; --merge-policy replays them under each policy given, and names each \
            row with its policy (e.g. "configured · FurthestRead"). Sessions whose devices keep \
            caches of their own (format version 3) reach a post a device lacks with the \
            configured Network.Reach; --reach replays them with each strategy given (e.g. \
            "configured · OnePage"), and the report adds requests and bytes per restore.

            --jobs runs sessions in parallel with identical results. --shard K/N evaluates every \
            N-th session starting at the K-th; --format json output of the shards combines with \
            --merge into the report a single run gives.

            Exit codes: 0 compared (warnings included), 1 a session or the configuration could \
            not be read, 2 a bad path, spec or usage.

            Examples:
              engine compare --config app.plist --sessions sessions/
              engine compare --config app.plist --sessions s/ --strategy 'ExactMatch'
              engine compare --config c.plist --sessions s/ --strategy 'A > B' --strategy C
              engine compare --config c.plist --sessions s/ \\
                --merge-policy LastWriterWins --merge-policy FurthestRead
              engine compare --config c.plist --sessions c/ \\
                --reach PostWindow --reach OnePage --reach TopPages
              engine compare --config c.plist --sessions s/ --shard 1/2 --format json \\
                -o part1.json
              engine compare --merge part1.json part2.json --format html -o report.html
            """
    )

    @Option(name: .long, help: "The configuration file (plist, Info.plist or JSON).")
    var config: String?

    @Option(name: .long, parsing: .upToNextOption, help: "Session files or directories of .jsonl files.")
    var sessions: [String] = []

    @Option(
        name: .customLong("merge-policy"),
        help:
            "Replay multi-device sessions under this merge policy, in spec notation (e.g. 'FurthestRead(Direction: Older)'); repeatable: each row is then named with its policy."
    )
    var mergePolicies: [String] = []

    @Option(
        name: .customLong("reach"),
        help:
            "Replay sessions whose devices keep caches of their own with this reach strategy (e.g. 'TopPages(MaxPages: 10)'); repeatable: each row is then named with it."
    )
    var reaches: [String] = []

    @Option(name: .long, help: "A pipeline in spec notation; repeat to compare several.")
    var strategy: [String] = []

    @Option(name: .long, help: "Output format: text (an aligned table), json, csv or html.")
    var format: OutputFormat = .text

    @Option(name: .shortAndLong, help: "Write the report to this file instead of standard output.")
    var output: String?

    @Option(name: .long, parsing: .unconditional, help: "Sessions evaluated in parallel (default: the number of processors).")
    var jobs: Int?

    @Option(name: .long, help: "Evaluate shard K of N (K/N).")
    var shard: String?

    @Option(name: .long, parsing: .upToNextOption, help: "Combine the JSON reports of shards instead of replaying.")
    var merge: [String] = []

    @Flag(name: .long, help: "Never draw the progress bar.")
    var noProgress = false

    @OptionGroup var lenientOption: LenientOption

    @OptionGroup var plugins: PluginOptions

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if !merge.isEmpty {
            guard sessions.isEmpty, strategy.isEmpty, shard == nil else {
                throw ValidationError("--merge combines reports; it takes no --sessions, --strategy or --shard")
            }
            return
        }
        guard config != nil else { throw ValidationError("missing --config (or --merge REPORT...)") }
        guard !sessions.isEmpty else { throw ValidationError("missing --sessions PATH...") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1, got \(jobs)") }
        if let shard, Shard(parsing: shard) == nil { throw ValidationError("--shard must be K/N with 1 ≤ K ≤ N, e.g. 1/4") }
    }

    func run() async throws {
        let report = merge.isEmpty ? try await compare() : try mergeReports()
        let text: String
        switch format {
        case .text: text = ReportTable.render(report)
        case .csv: text = ReportCSV.render(report)
        case .html: text = ReportHTML.render(report)
        case .json: text = try Console.jsonText(ComparisonReportCoding.value(of: report))
        }
        if let output {
            try OutputFile.write(Data(text.utf8), to: output, what: "the report")
        } else {
            Console.outRaw(text)
        }
        if report.sessionsFailed > 0 { throw EngineExit.invalid }
    }

    private func compare() async throws -> ComparisonReport {
        let engine = try ConfigurationInput.load(config ?? "", lenient: lenientOption.lenient, plugins: plugins.paths)
        let configuration = engine.configuration
        let registry = engine.registry
        let candidates: [ComparisonCandidate]
        do throws(PipelineError) {
            candidates = try ComparisonCandidate.candidates(configuration: configuration, specs: strategy, registry: registry)
        } catch {
            Console.error("error: \(error.description)")
            throw strategy.isEmpty ? EngineExit.invalid : EngineExit.usage
        }
        var files: [String]
        do {
            files = try SessionFiles.expand(sessions)
        } catch {
            throw CommandFailure(.unreadable, error.description)
        }
        if files.isEmpty {
            throw CommandFailure(.unreadable, "\(sessions.joined(separator: ", ")): error: no session files (.jsonl) to compare")
        }
        if let shard = shard.flatMap(Shard.init(parsing:)) { files = shard.select(files) }
        let specs = strategy
        // Each merge policy and reach strategy replays the sessions on its own (ComparisonVariant).
        let policies = try mergePolicies.map {
            let (label, spec) = try Self.component($0, kind: .merge, option: "--merge-policy", registry: registry)
            return ComparisonVariant(label: label, mergePolicy: spec)
        }
        let reachVariants = try reaches.map {
            let (label, spec) = try Self.component($0, kind: .reach, option: "--reach", registry: registry)
            return ComparisonVariant(label: label, reach: spec)
        }
        let runner = ComparisonRunner(
            candidates: candidates, settings: ReplaySettings(configuration: configuration),
            jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount, registry: registry,
            rebuild: { (try? ComparisonCandidate.candidates(configuration: configuration, specs: specs, registry: registry)) ?? candidates })
        let bar = ProgressBar(enabled: !noProgress && !logging.quiet && isatty(STDERR_FILENO) == 1)
        var report = await runner.run(
            variants: ComparisonVariant.grid(mergePolicies: policies, reaches: reachVariants), files: files,
            diagnostics: { _, issues in for issue in issues { bar.print(issue.description) } },
            progress: { done, total in bar.update(done: done, total: total) }, finished: { bar.finish() })
        if let shard { report.shards = [shard] }
        return report
    }

    /// One component of `kind` from the command line, checked through the registry.
    static func component(
        _ text: String, kind: StrategyKind, option: String,
        registry: StrategyRegistry
    ) throws -> (label: String, spec: ComponentSpec) {
        let node: StrategyNode
        do {
            let parsed = try PipelineSpec.parse(text)
            guard case .stage(_, _, let arguments) = parsed, arguments.isEmpty else {
                let example = kind == .merge ? "FurthestRead(Direction: Older)" : "TopPages(MaxPages: 10)"
                throw CommandFailure(
                    .usage, "error: \(option) takes one \(kind == .merge ? "policy" : kind.label), such as \(example), found \(text)")
            }
            node = StrategyNode(parsed)
        } catch let error as PipelineSpec.SyntaxError {
            throw CommandFailure(.usage, "error: invalid \(option) at \(error.description)")
        }
        let name: String
        do {
            _ = try registry.build(node, kind: kind)
            name = try registry.lookup(node.name, kind: kind).name
        } catch {
            throw CommandFailure(.usage, "error: \(error.description)")
        }
        return (text, ComponentSpec(name: name, parameters: node.parameters))
    }

    private func mergeReports() throws -> ComparisonReport {
        var combined: ComparisonReport?
        for path in merge {
            let data = try FileInput.read(path)
            do {
                let report = try ComparisonReportCoding.report(from: try JSONReader().read(data))
                if combined == nil { combined = report } else { try combined!.merge(report) }
            } catch let error as JSONSyntaxError {
                throw CommandFailure(.invalidInput, "\(path):\(error.description)")
            } catch {
                throw CommandFailure(.invalidInput, "\(path): error: \(error)")
            }
        }
        return combined ?? ComparisonReport(pipelines: [])
    }
}

/// A one-line progress bar on standard error, redrawn in place; diagnostics printed while it
/// shows go above it.
final class ProgressBar: Sendable {
    private struct Drawn {
        var shown = false
        var percent = -1
    }

    private let enabled: Bool
    private let drawn = Locked(Drawn())

    init(enabled: Bool) {
        self.enabled = enabled
    }

    func update(done: Int, total: Int) {
        guard enabled, total > 0 else { return }
        drawn.withLock { drawn in
            let width = 30
            let filled = width * done / total
            let percent = 100 * done / total
            guard percent != drawn.percent else { return }
            drawn.percent = percent
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            FileHandle.standardError.write(Data("\r[\(bar)] \(done)/\(total) sessions".utf8))
            drawn.shown = true
        }
    }

    func print(_ line: String) {
        drawn.withLock { drawn in
            if drawn.shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            FileHandle.standardError.write(Data((line + "\n").utf8))
            drawn.percent = -1
        }
    }

    func finish() {
        drawn.withLock { drawn in
            if drawn.shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            drawn.shown = false
        }
    }
}
