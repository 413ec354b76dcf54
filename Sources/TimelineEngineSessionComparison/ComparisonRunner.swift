import Dispatch
import Foundation
import TimelineEngineRestoration
import TimelineEngineSessionFormat
import TimelineEngineSessionReplay
import TimelineEngineSupport

/// Replays sessions and evaluates every candidate pipeline at every restore point.
///
/// Each session is replayed once; at each restore point every pipeline gets the same input
/// snapshot and timeline, so all are judged on identical replays. Sessions stream one at a time
/// per worker, so memory does not grow with their number; with `jobs` > 1 workers take
/// sessions in turn, and since the totals are integer counts the report is the same for any
/// number of jobs. Diagnostics come out in session order whatever the number of jobs.
public struct ComparisonRunner: Sendable {
    public var candidates: [ComparisonCandidate]
    public var settings: ReplaySettings
    public var jobs: Int
    /// Builds a fresh copy of the candidates for each parallel worker, so that workers share no
    /// reference-counted stage objects (whose counts would bounce between processor caches).
    public var rebuild: (@Sendable () -> [ComparisonCandidate])?
    /// The registry the replay builds the merge policy and the reach strategy through: the one
    /// the candidates came from, plugins included.
    public var registry: StrategyRegistry

    public init(
        candidates: [ComparisonCandidate], settings: ReplaySettings, jobs: Int = 1, registry: StrategyRegistry = BuiltInStrategies.registry,
        rebuild: (@Sendable () -> [ComparisonCandidate])? = nil
    ) {
        self.candidates = candidates
        self.settings = settings
        self.registry = registry
        self.jobs = max(1, jobs)
        self.rebuild = rebuild
    }

    /// An empty report for these candidates.
    public func emptyReport() -> ComparisonReport {
        ComparisonReport(pipelines: candidates.map { PipelineResults(name: $0.name, pipeline: $0.pipeline.summary) })
    }

    /// Evaluates one session file into `report`; returns its diagnostics (warnings, or the error
    /// that kept it out).
    public func evaluate(file path: String, into report: inout ComparisonReport) -> [SessionIssue] {
        evaluate(file: path, with: candidates, into: &report)
    }

    func evaluate(file path: String, with candidates: [ComparisonCandidate], into report: inout ComparisonReport) -> [SessionIssue] {
        var reader: SessionReader
        do {
            reader = try SessionReader(contentsOf: URL(fileURLWithPath: path), name: path)
        } catch {
            report.sessionsFailed += 1
            return [error]
        }
        return evaluate(&reader, with: candidates, into: &report)
    }

    /// Evaluates the session `reader` reads into `report`.
    public func evaluate(_ reader: inout SessionReader, into report: inout ComparisonReport) -> [SessionIssue] {
        evaluate(&reader, with: candidates, into: &report)
    }

    func evaluate(_ reader: inout SessionReader, with candidates: [ComparisonCandidate], into report: inout ComparisonReport) -> [SessionIssue] {
        var diagnostics = reader.takeWarnings()
        var replayer: SessionReplayer
        do {
            replayer = try SessionReplayer(header: reader.header, settings: settings, registry: registry)
        } catch {
            report.sessionsFailed += 1
            return diagnostics + [SessionIssue(.error, file: reader.name, "cannot replay: \(error.description)")]
        }
        var tags: [String] = []
        while let event = reader.next() {
            guard let point = replayer.apply(event, line: reader.line) else { continue }
            tags.append(point.tag)
            for (position, candidate) in candidates.enumerated() {
                let evaluation = RestoreEvaluation.evaluate(point, pipeline: candidate.pipeline, policy: settings.policy)
                report.pipelines[position].add(evaluation, tag: point.tag)
                if position == 0 {
                    if let reason = evaluation.unscoredReason {
                        diagnostics.append(SessionIssue(.warning, file: reader.name, line: point.line, "restore point: \(reason)"))
                    }
                    replayer.restored(evaluation, at: point)
                }
            }
        }
        // Convergence is the merge policy's, the same for every pipeline. A write counts under
        // the tag of the restore point that followed it; only sessions on several devices count.
        if replayer.devices.count > 1 {
            let convergence = replayer.convergence
            for position in candidates.indices {
                for write in convergence.converged {
                    report.pipelines[position].addConvergence(seconds: write.seconds, tag: write.episode < tags.count ? tags[write.episode] : nil)
                }
                for episode in convergence.unconverged {
                    report.pipelines[position].addConvergence(seconds: nil, tag: episode < tags.count ? tags[episode] : nil)
                }
            }
        }
        diagnostics += reader.takeWarnings()
        diagnostics.sort { ($0.line ?? 0) < ($1.line ?? 0) }
        report.sessionsRead += 1
        report.warnings += diagnostics.count
        return diagnostics
    }

    /// Evaluates every file. `diagnostics` receives each session's issues, in file order;
    /// `progress` the number of sessions done so far. The caller suspends while `jobs` workers
    /// replay the sessions on threads of their own (`ParallelWork`), never on the cooperative
    /// pool.
    public func run(
        files: [String], diagnostics: @escaping @Sendable (_ file: String, [SessionIssue]) -> Void = { _, _ in },
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) async -> ComparisonReport {
        let state = RunState(total: files.count, emit: diagnostics, progress: progress)
        let workers = min(jobs, max(1, files.count))
        let template = emptyReport()
        await ParallelWork.run(count: workers) { _ in
            var local = template
            let own = workers > 1 ? rebuild?() ?? candidates : candidates
            while let next = state.claim() {
                let issues = evaluate(file: files[next], with: own, into: &local)
                state.finish(next, file: files[next], issues: issues)
            }
            state.collect(local)
        }
        return state.combined(into: template)
    }
}

/// What the workers of one run share: the next file to take, the reports to combine, and
/// diagnostics held back until every earlier session's have been emitted.
private final class RunState: Sendable {
    private struct Progress {
        var nextFile = 0
        var done = 0
        var nextToEmit = 0
        var held: [Int: (String, [SessionIssue])] = [:]
        var reports: [ComparisonReport] = []
    }

    private let state = Locked(Progress())
    private let total: Int
    private let emit: @Sendable (String, [SessionIssue]) -> Void
    private let progress: (@Sendable (Int, Int) -> Void)?

    init(total: Int, emit: @escaping @Sendable (String, [SessionIssue]) -> Void, progress: (@Sendable (Int, Int) -> Void)?) {
        self.total = total
        self.emit = emit
        self.progress = progress
    }

    func claim() -> Int? {
        state.withLock { state in
            guard state.nextFile < total else { return nil }
            state.nextFile += 1
            return state.nextFile - 1
        }
    }

    func finish(_ index: Int, file: String, issues: [SessionIssue]) {
        state.withLock { state in
            state.held[index] = (file, issues)
            while let (heldFile, heldIssues) = state.held.removeValue(forKey: state.nextToEmit) {
                emit(heldFile, heldIssues)
                state.nextToEmit += 1
            }
            state.done += 1
            progress?(state.done, total)
        }
    }

    func collect(_ report: ComparisonReport) {
        state.withLock { $0.reports.append(report) }
    }

    func combined(into template: ComparisonReport) -> ComparisonReport {
        state.withLock { state in
            var result = template
            // Merging cannot fail: every worker started from the same template.
            for report in state.reports { try? result.merge(report) }
            return result
        }
    }
}
