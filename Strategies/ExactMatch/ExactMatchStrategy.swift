import Foundation
import TimelineEngineCore
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// ExactMatch: finds the saved post by id. The post keeps its `viewportY`, so the reader lands
/// on the same pixel, not just the same post (the seed app restored offset 0 inside the post).
public struct ExactMatchStrategy: RestorationStage, DeclaredStrategy {
    public static let type = StrategyType(
        name: "ExactMatch", kind: .restoration,
        summary: "Finds the saved post by id; the reader lands on the same pixel.",
        examples: ExactMatchStrategy.scenarios
    ) { _ in
        .restoration(ExactMatchStrategy())
    }

    public init() {}

    public func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth: Int) -> Candidate? {
        guard let snapshot = request.snapshot, let index = request.index.index(of: snapshot.postId) else { return nil }
        var explanation = "post \(snapshot.postId) is still in the timeline"
        if let saved = snapshot.index, saved != index {
            explanation += ", now at index \(index) (was \(saved))"
        } else {
            explanation += " at index \(index)"
        }
        return Candidate(
            index: index, confidence: 1, method: .exactMatch, placement: .standIn, strategy: name,
            explanation: explanation)
    }

    static let scenarios: [StrategyScenario] = {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let posts = (0..<6).map { Post(id: "p\($0)", createdAt: base.addingTimeInterval(Double(-60 * $0)), text: "post \($0)", height: 100) }
        let snapshot = PositionSnapshot(
            postId: "p3", postCreatedAt: posts[3].createdAt, viewportY: -30, contentOffset: 330,
            index: 3, timelineCount: 6)
        let refreshed =
            [
                Post(id: "new1", createdAt: base.addingTimeInterval(60), height: 100),
                Post(id: "new2", createdAt: base.addingTimeInterval(30), height: 100),
            ] + posts
        return [
            StrategyScenario(
                name: "post present", timeline: Timeline(posts: posts), snapshot: snapshot,
                expectedPostId: "p3", expectedMethod: .exactMatch, expectedConfidence: 1, expectedPlacement: .standIn,
                expectedExplanation: "post p3 is still in the timeline at index 3"),
            StrategyScenario(
                name: "posts inserted above", timeline: Timeline(posts: refreshed), snapshot: snapshot,
                expectedPostId: "p3", expectedMethod: .exactMatch, expectedConfidence: 1, expectedPlacement: .standIn,
                expectedExplanation: "post p3 is still in the timeline, now at index 5 (was 3)"),
            StrategyScenario(
                name: "post deleted", timeline: Timeline(posts: posts.filter { $0.id != "p3" }), snapshot: snapshot,
                expectedPostId: nil),
        ]
    }()
}
