import CoreMetrics
import Foundation
import TimelineEngineCore
import TimelineEngineRestorationModel
import TimelineEngineSyncModel

/// What the engine publishes of every restore through swift-metrics, so that an app can report
/// how well it puts readers back in the field: a counter per outcome and a timer of the
/// decision. Nothing is recorded anywhere until the app bootstraps a metrics backend
/// (`MetricsSystem.bootstrap`, once, at launch), or gives the engine a factory of its own
/// (`TimelineEngine(…, metrics:)`). docs/METRICS.md says how to turn the counts into a
/// success rate, and how it relates to `engine compare`'s `exact`.
///
/// - `timeline_restore_outcomes_total`, a counter with three dimensions:
///   `outcome` (`exact`, `neighbour`, `temporal`, `content`, `fallback`, `other` for a plugin's
///   method, `none` when nothing was found), `source` (`synced`: another device's position won;
///   `own`: this device's) and `post` (`reached`: fetched across a gap by the reach strategy;
///   `cached`: in the timeline as loaded). Only restores with a saved position count: a first
///   launch has nothing to restore.
/// - `timeline_restore_decision_seconds`, a timer of the restoration pipeline's decision.
public struct RestoreMetrics: Sendable {
    public static let outcomesLabel = "timeline_restore_outcomes_total"
    public static let decisionLabel = "timeline_restore_decision_seconds"

    /// The factory to record with; nil: the process's (`MetricsSystem.factory`), read at each
    /// restore, so that a bootstrap after the engine was made still counts.
    let factory: (any MetricsFactory)?

    public init(factory: (any MetricsFactory)? = nil) {
        self.factory = factory
    }

    /// The `outcome` dimension of a restoration's method.
    public static func outcome(of restoration: Restoration?) -> String {
        guard let method = restoration?.method else { return "none" }
        switch method {
        case .exactMatch: return "exact"
        case .neighborAnchor: return "neighbour"
        case .temporalProximity: return "temporal"
        case .contentSimilarity: return "content"
        case .fallback: return "fallback"
        default: return "other"
        }
    }

    /// Records one restore from a saved position: what it found, where its start came from,
    /// whether its post was reached across a gap, and how long the pipeline took to decide. The
    /// façade calls it at each restore; an app that runs a pipeline of its own may too.
    public func record(_ restoration: Restoration?, source: RestoreStart.Source, reached: Bool, decision: Duration) {
        let factory = factory ?? MetricsSystem.factory
        Counter(
            label: Self.outcomesLabel,
            dimensions: [
                ("outcome", Self.outcome(of: restoration)), ("source", source == .synced ? "synced" : "own"),
                ("post", reached ? "reached" : "cached"),
            ], factory: factory
        ).increment()
        let (seconds, attoseconds) = decision.components
        CoreMetrics.Timer(label: Self.decisionLabel, factory: factory).recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
