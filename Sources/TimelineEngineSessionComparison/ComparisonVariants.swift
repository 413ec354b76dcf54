import TimelineEngineConfiguration
import TimelineEngineSessionFormat
import TimelineEngineSessionReplay

/// A replay setting the comparison varies: a merge policy or a reach strategy other than the
/// configured one. Each variant replays the sessions on its own, since the restore inputs and
/// the devices' caches depend on it; its label follows the name of every pipeline it ran.
public struct ComparisonVariant: Sendable, Equatable {
    /// What it is called in the report (`FurthestRead(Direction: Older)`).
    public var label: String
    public var mergePolicy: ComponentSpec?
    public var reach: ComponentSpec?

    public init(label: String, mergePolicy: ComponentSpec? = nil, reach: ComponentSpec? = nil) {
        self.label = label
        self.mergePolicy = mergePolicy
        self.reach = reach
    }

    /// Every merge policy with every reach strategy, each list empty for the configured one.
    public static func grid(mergePolicies: [ComparisonVariant], reaches: [ComparisonVariant]) -> [ComparisonVariant?] {
        let policies: [ComparisonVariant?] = mergePolicies.isEmpty ? [nil] : mergePolicies
        let reachList: [ComparisonVariant?] = reaches.isEmpty ? [nil] : reaches
        return policies.flatMap { policy in
            reachList.map { reach -> ComparisonVariant? in
                guard policy != nil || reach != nil else { return nil }
                let label = [policy?.label, reach?.label].compactMap { $0 }.joined(separator: " · ")
                return ComparisonVariant(label: label, mergePolicy: policy?.mergePolicy, reach: reach?.reach)
            }
        }
    }
}

extension ComparisonRunner {
    /// Runs the comparison once per variant (nil: the settings as they are), and puts the
    /// pipelines of every run in one report, each named with its variant's label. `diagnostics`
    /// hears the first run's only: the others replay the same sessions.
    public func run(
        variants: [ComparisonVariant?], files: [String],
        diagnostics: @escaping @Sendable (_ file: String, [SessionIssue]) -> Void = { _, _ in },
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil,
        finished: () -> Void = {}
    ) async -> ComparisonReport {
        var combined: ComparisonReport?
        for (number, variant) in variants.enumerated() {
            var runner = self
            if let policy = variant?.mergePolicy { runner.settings.mergePolicy = policy }
            if let reach = variant?.reach { runner.settings.reach = reach }
            var report = await runner.run(
                files: files, diagnostics: { file, issues in if number == 0 { diagnostics(file, issues) } }, progress: progress)
            finished()
            if let label = variant?.label {
                for index in report.pipelines.indices { report.pipelines[index].name += " · \(label)" }
            }
            if var existing = combined {
                existing.pipelines += report.pipelines
                combined = existing
            } else {
                combined = report
            }
        }
        return combined ?? ComparisonReport(pipelines: [])
    }
}
