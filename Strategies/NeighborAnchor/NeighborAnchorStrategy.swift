import Foundation
import StrategyKit
import TimelineCore
import ValueTree

/// NeighborAnchor: when the saved post is gone, the nearest surviving neighbour recorded in the
/// snapshot stands in for it. Neighbours are tried nearest first and, at equal distance, the one
/// below (next in reading direction) first: below 1, above 1, below 2, above 2, … up to `Depth`
/// per side. Confidence is `0.9 − 0.1 × (distance − 1)`, never below 0.1.
public struct NeighborAnchorStrategy: RestorationStage, DeclaredStrategy {
    public static let depthParameter = Parameter<Int>(
        "Depth", help: "How many recorded neighbours to consult on each side.", default: 5, range: 1...100)

    public static let type = StrategyType(
        name: "NeighborAnchor", kind: .restoration,
        summary: "Stands in the nearest surviving neighbour of the saved post (below first at equal distance).",
        parameters: [depthParameter.declaration],
        scenarios: NeighborAnchorStrategy.scenarios
    ) { options in
        .restoration(NeighborAnchorStrategy(depth: options(depthParameter)))
    }

    public let depth: Int

    public init(depth: Int = depthParameter.defaultValue) {
        self.depth = depth
    }

    public static func confidence(distance: Int) -> Double {
        max(0.1, 0.9 - 0.1 * Double(distance - 1))
    }

    public func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth _: Int) -> Candidate? {
        guard let snapshot = request.snapshot else { return nil }
        let above = snapshot.neighbors.above, below = snapshot.neighbors.below
        for distance in 1...depth {
            for (side, list) in [("below", below), ("above", above)] where distance <= list.count {
                let id = list[distance - 1]
                if let index = request.index.index(of: id) {
                    return Candidate(
                        index: index, confidence: NeighborAnchorStrategy.confidence(distance: distance), method: .neighborAnchor,
                        placement: .standIn, strategy: name,
                        explanation: "post \(snapshot.postId) is gone; its neighbour \(id), \(distance) \(side), survives at index \(index)")
                }
            }
        }
        return nil
    }

    static let scenarios: [StrategyScenario] = {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let posts = (0..<10).map { Post(id: "p\($0)", createdAt: base.addingTimeInterval(Double(-60 * $0)), height: 100) }
        let snapshot = PositionSnapshot(postId: "p5", postCreatedAt: posts[5].createdAt, viewportY: 0, contentOffset: 500,
                                        index: 5, timelineCount: 10,
                                        neighbors: .init(above: ["p4", "p3", "p2"], below: ["p6", "p7", "p8"]))
        return [
            StrategyScenario(name: "below wins at equal distance", timeline: Timeline(posts: posts.filter { $0.id != "p5" }),
                             snapshot: snapshot, expectedPostId: "p6", expectedMethod: .neighborAnchor,
                             // Distance 1: 0.9 − 0.1 × (1 − 1).
                             expectedConfidence: 0.9, expectedPlacement: .standIn,
                             expectedExplanation: "post p5 is gone; its neighbour p6, 1 below, survives at index 5"),
            StrategyScenario(name: "above 1 before below 2",
                             timeline: Timeline(posts: posts.filter { !["p5", "p6"].contains($0.id) }),
                             snapshot: snapshot, expectedPostId: "p4", expectedMethod: .neighborAnchor,
                             expectedConfidence: 0.9, expectedPlacement: .standIn,
                             expectedExplanation: "post p5 is gone; its neighbour p4, 1 above, survives at index 4"),
            StrategyScenario(name: "no neighbour survives",
                             timeline: Timeline(posts: posts.filter { ["p0", "p1", "p9"].contains($0.id) }),
                             snapshot: snapshot, expectedPostId: nil),
        ]
    }()
}
