import Foundation
import TimelineEngineCore
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// TemporalProximity: the post whose `createdAt` is closest to the saved post's, within `Window`
/// seconds (inclusive), found by binary search over the time-sorted view, so it is right when
/// display order is not time order (algorithmic feeds, federated timelines). At equal |Δt| the
/// post with the larger display index (lower on screen) wins. Confidence is
/// `0.8 × (1 − |Δt| / Window)` (0.8 when Window is 0).
public struct TemporalProximityStrategy: RestorationStage, DeclaredStrategy {
    public static let windowParameter = Parameter<Double>(
        "Window", help: "Largest |Δt| in seconds between the saved post's creation time and a candidate's.", default: 3600, minimum: 0,
        maximum: 315_360_000)

    public static let type = StrategyType(
        name: "TemporalProximity", kind: .restoration,
        summary: "Finds the post created closest in time to the saved one, within Window seconds.",
        parameters: [windowParameter.declaration],
        examples: TemporalProximityStrategy.scenarios
    ) { options in
        .restoration(TemporalProximityStrategy(window: options(windowParameter)))
    }

    public let window: Double

    public init(window: Double = windowParameter.defaultValue) {
        self.window = window
    }

    public func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth: Int) -> Candidate? {
        guard let snapshot = request.snapshot, let savedAt = snapshot.postCreatedAt, request.index.count > 0 else { return nil }
        let index = request.index
        let target = savedAt.timeIntervalSince1970
        let after = index.timeOrderPosition(atOrAfter: savedAt)
        // The closest time at or after the target, and the closest before it.
        let deltaAfter = after < index.count ? index.time(atTimeOrderPosition: after) - target : .infinity
        let deltaBefore = after > 0 ? target - index.time(atTimeOrderPosition: after - 1) : .infinity
        let best = min(deltaAfter, deltaBefore)
        guard best <= window else { return nil }
        var choice = -1
        if deltaBefore == best {
            // Runs of equal times are ordered by display index: the run's last is the largest.
            choice = index.displayIndex(atTimeOrderPosition: after - 1)
        }
        if deltaAfter == best {
            let runEnd = index.timeOrderPosition(after: index.time(atTimeOrderPosition: after)) - 1
            choice = max(choice, index.displayIndex(atTimeOrderPosition: runEnd))
        }
        let confidence = window > 0 ? 0.8 * (1 - best / window) : 0.8
        let post = index.posts[choice]
        return Candidate(
            index: choice, confidence: confidence, method: .temporalProximity, placement: .standIn, strategy: name,
            explanation: "post \(post.id) was created \(TimeDistance.describe(best)) from the saved post (window \(TimeDistance.describe(window)))")
    }

    static let scenarios: [StrategyScenario] = {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        // An algorithmic feed: display order is not time order.
        let offsets: [Double] = [-50, -3000, -10, -400, -7200, -20]
        let posts = offsets.enumerated().map { Post(id: "p\($0.offset)", createdAt: base.addingTimeInterval($0.element), height: 100) }
        let saved = PositionSnapshot(postId: "gone", postCreatedAt: base.addingTimeInterval(-390), index: 3, timelineCount: 6)
        let tie = PositionSnapshot(postId: "gone", postCreatedAt: base.addingTimeInterval(-15), index: 2, timelineCount: 6)
        return [
            StrategyScenario(
                name: "algorithmic order", timeline: Timeline(posts: posts), snapshot: saved,
                // 10 s from the saved time in a 3,600 s window: 0.8 × (1 − 10 / 3600).
                expectedPostId: "p3", expectedMethod: .temporalProximity, expectedConfidence: 0.797_777_778,
                expectedPlacement: .standIn, expectedExplanation: "post p3 was created 10 s from the saved post (window 60 min)"),
            StrategyScenario(
                name: "equal distance: lower on screen wins", timeline: Timeline(posts: posts), snapshot: tie,
                // 5 s either way: 0.8 × (1 − 5 / 3600).
                expectedPostId: "p5", expectedMethod: .temporalProximity, expectedConfidence: 0.798_888_889,
                expectedPlacement: .standIn, expectedExplanation: "post p5 was created 5 s from the saved post (window 60 min)"),
            StrategyScenario(
                name: "outside the window", timeline: Timeline(posts: posts),
                snapshot: PositionSnapshot(postId: "gone", postCreatedAt: base.addingTimeInterval(-20_000)),
                expectedPostId: nil),
        ]
    }()
}
