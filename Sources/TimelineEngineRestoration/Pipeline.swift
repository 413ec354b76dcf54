import TimelineEngineCore
import TimelineEngineReachModel
import TimelineEngineRestorationModel

/// A built pipeline: the restoration stage (usually a composition) and the positioning stage.
/// Immutable, and safe to use from any thread.
public struct Pipeline: Sendable {
    public let root: any RestorationStage
    public let positioning: any PositioningStage
    /// The pipeline in spec notation, e.g. `ExactMatch > Fallback(Mode: TopOfTimeline) | ViewportAnchor`.
    public let summary: String

    public init(root: any RestorationStage, positioning: any PositioningStage, summary: String) {
        self.root = root
        self.positioning = positioning
        self.summary = summary
    }

    /// What a restoration produced, with every stage's verdict.
    public struct Outcome: Sendable {
        /// Nil when the timeline is empty (or no stage answered).
        public var restoration: Restoration?
        public var trace: [StageVerdict]
    }

    /// Runs the pipeline on `request`.
    public func restore(_ request: RestorationRequest) -> Outcome {
        var trace: [StageVerdict] = []
        guard request.index.count > 0 else { return Outcome(restoration: nil, trace: trace) }
        guard let candidate = root.propose(request, trace: &trace, depth: 0) else {
            return Outcome(restoration: nil, trace: trace)
        }
        return Outcome(restoration: positioning.place(candidate, request: request), trace: trace)
    }
}
