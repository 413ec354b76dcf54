import Foundation
import TimelineEngineCore
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// ViewportAnchor, the positioning stage: puts the chosen post at the right `viewportY`, as CSS
/// scroll anchoring does.
///
/// - A post that stands in for the saved one (ExactMatch, NeighborAnchor, TemporalProximity,
///   ContentSimilarity) takes the snapshot's `viewportY`.
/// - NearestContent, NewestPost and OldestPost put their post at `viewportY` 0.
/// - TopOfTimeline is content offset 0; LastKnownPosition restores the saved offset, and its post
///   is the anchor there.
///
/// `contentOffset = y(post) − viewportY`, clamped to [0, max(0, contentHeight − viewportHeight)],
/// so with known heights a surviving post does not drift, however many posts were inserted or
/// removed above it. `AtTop: RevealNew` keeps a reader who was at offset 0 at the top, so that
/// new posts show.
public struct ViewportAnchorStrategy: PositioningStage, DeclaredStrategy {
    public enum AtTop: String, ParameterChoice {
        case keepPosition = "KeepPosition"
        case revealNew = "RevealNew"
    }

    public static let atTopParameter = Parameter<AtTop>(
        "AtTop", help: "KeepPosition anchors even a reader at offset 0; RevealNew keeps them at the top so new posts show.",
        default: .keepPosition)

    public static let type = StrategyType(
        name: "ViewportAnchor", kind: .positioning,
        summary: "Puts the chosen post at the saved viewportY (or the top), clamped to the content.",
        parameters: [atTopParameter.declaration]
    ) { options in
        .positioning(ViewportAnchorStrategy(atTop: options(atTopParameter)))
    }

    public let atTop: AtTop

    public init(atTop: AtTop = atTopParameter.defaultValue) {
        self.atTop = atTop
    }

    public func place(_ candidate: Candidate, request: RestorationRequest) -> Restoration {
        let index = request.index
        let snapshot = request.snapshot
        var chosen = candidate.index
        var offset: Double
        var explanation = candidate.explanation
        if atTop == .revealNew, let snapshot, snapshot.contentOffset <= 0 {
            offset = 0
            chosen = 0
            explanation += "; the reader was at the top, so the top is kept (RevealNew)"
        } else {
            switch candidate.placement {
            case .standIn:
                offset = index.y(of: chosen) - (snapshot?.viewportY ?? 0)
            case .postAtTop:
                offset = index.y(of: chosen)
            case .topOfTimeline:
                offset = 0
            case .contentOffset(let saved):
                offset = saved
            }
            offset = index.clamp(offset: offset)
            if case .contentOffset = candidate.placement {
                chosen = index.index(atOffset: offset) ?? 0
            }
            if case .topOfTimeline = candidate.placement {
                chosen = 0
            }
        }
        let post = index.posts[chosen]
        return Restoration(
            postId: post.id, index: chosen, contentOffset: offset, viewportY: index.y(of: chosen) - offset,
            method: candidate.method, strategy: candidate.strategy, confidence: candidate.confidence,
            explanation: explanation)
    }
}
