import Foundation
import TimelineEngineCore
import TimelineEngineReachModel
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineSyncModel
import TimelineEngineValueTree

/// NeighborAnchor: when the saved post is gone, the next surviving post in the reader's direction
/// stands in for it (`ReadingDirection.standInOrder`, the one rule of deleted posts). Reading down
/// (`Older`), every recorded neighbour below is tried, nearest first, before any above; catching
/// up (`Newer`), the ones above first. `Direction: Learned` (the default) takes the way the
/// reader's own saves moved, and `Older` while they show none. When reaching the post told that
/// the source has it no more and which post follows it on that side, that post stands in first,
/// even for a position saved without neighbours (an id alone, as read markers carry). Neighbours
/// the source said are gone are skipped. Confidence is `0.9 − 0.1 × (distance − 1)`, never below
/// 0.1; the source's own survivor counts as distance 1.
public struct NeighborAnchorStrategy: RestorationStage, DeclaredStrategy {
    public static let depthParameter = Parameter<Int>(
        "Depth", help: "How many recorded neighbours to consult on each side.", default: 5, range: 1...100)

    public static let type = StrategyType(
        name: "NeighborAnchor", kind: .restoration,
        summary: "Stands in the next surviving neighbour of the saved post in the reader's direction (below when reading down).",
        parameters: [depthParameter.declaration, DirectionChoice.parameter.declaration],
        examples: NeighborAnchorStrategy.scenarios
    ) { options in
        .restoration(NeighborAnchorStrategy(depth: options(depthParameter), direction: options(DirectionChoice.parameter)))
    }

    public let depth: Int
    public let direction: DirectionChoice

    public init(depth: Int = depthParameter.defaultValue, direction: DirectionChoice = DirectionChoice.parameter.defaultValue) {
        self.depth = depth
        self.direction = direction
    }

    public static func confidence(distance: Int) -> Double {
        max(0.1, 0.9 - 0.1 * Double(distance - 1))
    }

    public func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth _: Int) -> Candidate? {
        guard let snapshot = request.snapshot else { return nil }
        let way = direction.resolve(learned: request.direction) ?? .usual
        let findings = request.findings
        if findings.gone.contains(snapshot.postId), let survivor = findings.survivor(ahead: way), let index = request.index.index(of: survivor) {
            return Candidate(
                index: index, confidence: NeighborAnchorStrategy.confidence(distance: 1), method: .neighborAnchor, placement: .standIn,
                strategy: name,
                explanation: "post \(snapshot.postId) is gone; the source has \(survivor) next \(way.ahead), at index \(index)")
        }
        for (id, distance, side) in way.standInOrder(above: snapshot.neighbors.above, below: snapshot.neighbors.below, depth: depth)
        where !findings.gone.contains(id) {
            if let index = request.index.index(of: id) {
                if side != way.ahead, let ahead = postAhead(ofGapBeside: index, behind: id, in: request, way: way) {
                    return ahead
                }
                return Candidate(
                    index: index, confidence: NeighborAnchorStrategy.confidence(distance: distance), method: .neighborAnchor,
                    placement: .standIn, strategy: name,
                    explanation: "post \(snapshot.postId) is gone; its neighbour \(id), \(distance) \(side.rawValue), survives at index \(index)")
            }
        }
        return nil
    }

    /// Where no recorded neighbour ahead survives and `behind`, at `index`, is the nearest that
    /// does behind: the post now next to it on the reader's side, when the times show it further
    /// along than the gone post (and `behind` not): a post that came in there after the save,
    /// or one beyond the recorded neighbours. A reader catching up whose post was the newest
    /// when saved goes on to the posts that arrived above it, which no saved neighbour names.
    private func postAhead(ofGapBeside index: Int, behind: String, in request: RestorationRequest, way: ReadingDirection) -> Candidate? {
        guard let snapshot = request.snapshot, let gone = snapshot.postCreatedAt else { return nil }
        let next = way == .newer ? index - 1 : index + 1
        let posts = request.index.posts
        guard posts.indices.contains(next) else { return nil }
        let post = posts[next]
        let (time, behindTime) = (post.createdAt, posts[index].createdAt)
        let further = way == .newer ? time > gone && behindTime <= gone : time < gone && behindTime >= gone
        guard further, post.id != snapshot.postId, !request.findings.gone.contains(post.id) else { return nil }
        return Candidate(
            index: next, confidence: NeighborAnchorStrategy.confidence(distance: 1), method: .neighborAnchor, placement: .standIn,
            strategy: name,
            explanation:
                "post \(snapshot.postId) is gone and no recorded neighbour \(way.ahead.rawValue) it survives; \(post.id), next \(way.ahead.rawValue) where it stood and \(way == .newer ? "newer" : "older") than it, is at index \(next)"
        )
    }

    static let scenarios: [StrategyScenario] = {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let posts = (0..<10).map { Post(id: "p\($0)", createdAt: base.addingTimeInterval(Double(-60 * $0)), height: 100) }
        let snapshot = PositionSnapshot(
            postId: "p5", postCreatedAt: posts[5].createdAt, viewportY: 0, contentOffset: 500,
            index: 5, timelineCount: 10,
            neighbors: .init(above: ["p4", "p3", "p2"], below: ["p6", "p7", "p8"]))
        let idOnly = PositionSnapshot(postId: "p5")
        return [
            StrategyScenario(
                name: "below wins at equal distance", timeline: Timeline(posts: posts.filter { $0.id != "p5" }),
                snapshot: snapshot, expectedPostId: "p6", expectedMethod: .neighborAnchor,
                // Distance 1: 0.9 − 0.1 × (1 − 1).
                expectedConfidence: 0.9, expectedPlacement: .standIn,
                expectedExplanation: "post p5 is gone; its neighbour p6, 1 below, survives at index 5"),
            StrategyScenario(
                name: "reading down, the next survivor below before the nearer one above",
                timeline: Timeline(posts: posts.filter { !["p5", "p6"].contains($0.id) }),
                snapshot: snapshot, expectedPostId: "p7", expectedMethod: .neighborAnchor,
                // Distance 2: 0.9 − 0.1 × (2 − 1).
                expectedConfidence: 0.8, expectedPlacement: .standIn,
                expectedExplanation: "post p5 is gone; its neighbour p7, 2 below, survives at index 5"),
            StrategyScenario(
                name: "catching up (learned), the next survivor above before the nearer one below",
                timeline: Timeline(posts: posts.filter { !["p5", "p4"].contains($0.id) }),
                snapshot: snapshot, direction: .newer, expectedPostId: "p3", expectedMethod: .neighborAnchor,
                expectedConfidence: 0.8, expectedPlacement: .standIn,
                expectedExplanation: "post p5 is gone; its neighbour p3, 2 above, survives at index 3"),
            StrategyScenario(
                name: "Direction: Older overrides what was learned",
                timeline: Timeline(posts: posts.filter { !["p5", "p6"].contains($0.id) }),
                snapshot: snapshot, direction: .newer, parameters: ["Direction": .init(value: .string("Older"))],
                expectedPostId: "p7", expectedConfidence: 0.8),
            StrategyScenario(
                name: "catching up from the newest post when saved: a post that arrived above it since stands in",
                timeline: Timeline(
                    posts: [
                        Post(id: "new1", createdAt: base.addingTimeInterval(120), height: 100),
                        Post(id: "new0", createdAt: base.addingTimeInterval(60), height: 100),
                    ]
                        + posts.dropFirst()),
                snapshot: PositionSnapshot(
                    postId: "p0", postCreatedAt: base, index: 0, timelineCount: 10, neighbors: .init(above: [], below: ["p1", "p2"])),
                direction: .newer, expectedPostId: "new0", expectedMethod: .neighborAnchor, expectedConfidence: 0.9,
                expectedPlacement: .standIn,
                expectedExplanation:
                    "post p0 is gone and no recorded neighbour above it survives; new0, next above where it stood and newer than it, is at index 1"),
            StrategyScenario(
                name: "reading down from the oldest post when saved: a post of an older page loaded since stands in",
                timeline: Timeline(
                    posts: posts.dropLast() + [Post(id: "old10", createdAt: base.addingTimeInterval(-600), height: 100)]),
                snapshot: PositionSnapshot(
                    postId: "p9", postCreatedAt: posts[9].createdAt, index: 9, timelineCount: 10, neighbors: .init(above: ["p8", "p7"], below: [])),
                expectedPostId: "old10", expectedConfidence: 0.9,
                expectedExplanation:
                    "post p9 is gone and no recorded neighbour below it survives; old10, next below where it stood and older than it, is at index 9"),
            StrategyScenario(
                name: "catching up, no recorded neighbour above survives: the next surviving post above, beyond them",
                timeline: Timeline(posts: posts.filter { !["p2", "p3", "p4", "p5"].contains($0.id) }),
                snapshot: snapshot, direction: .newer, expectedPostId: "p1", expectedConfidence: 0.9,
                expectedExplanation:
                    "post p5 is gone and no recorded neighbour above it survives; p1, next above where it stood and newer than it, is at index 1"),
            StrategyScenario(
                name: "below only when nothing survives above, catching up, with no times to tell what stands above",
                timeline: Timeline(posts: posts.filter { !["p2", "p3", "p4", "p5"].contains($0.id) }),
                snapshot: PositionSnapshot(postId: "p5", neighbors: snapshot.neighbors), direction: .newer, expectedPostId: "p6",
                expectedConfidence: 0.9, expectedExplanation: "post p5 is gone; its neighbour p6, 1 below, survives at index 2"),
            StrategyScenario(
                name: "a neighbour the source said is gone is skipped",
                timeline: Timeline(posts: posts.filter { $0.id != "p5" }),
                snapshot: snapshot, findings: ReachFindings(gone: ["p5", "p6"]), expectedPostId: "p7",
                expectedConfidence: 0.8),
            StrategyScenario(
                name: "an id alone: the source's next post below the gone one stands in",
                timeline: Timeline(posts: posts.filter { $0.id != "p5" }),
                snapshot: idOnly, findings: ReachFindings(gone: ["p5"], survivorBelow: "p8", survivorAbove: "p4"),
                expectedPostId: "p8", expectedMethod: .neighborAnchor, expectedConfidence: 0.9, expectedPlacement: .standIn,
                expectedExplanation: "post p5 is gone; the source has p8 next below, at index 7"),
            StrategyScenario(
                name: "an id alone, catching up: the source's next post above",
                timeline: Timeline(posts: posts.filter { $0.id != "p5" }),
                snapshot: idOnly, direction: .newer,
                findings: ReachFindings(gone: ["p5"], survivorBelow: "p8", survivorAbove: "p4"),
                expectedPostId: "p4", expectedConfidence: 0.9,
                expectedExplanation: "post p5 is gone; the source has p4 next above, at index 4"),
            StrategyScenario(
                name: "an id alone and nothing learned: no candidate",
                timeline: Timeline(posts: posts.filter { $0.id != "p5" }), snapshot: idOnly, expectedPostId: nil),
            StrategyScenario(
                name: "no neighbour survives",
                timeline: Timeline(posts: posts.filter { ["p0", "p1", "p9"].contains($0.id) }),
                snapshot: snapshot, expectedPostId: nil),
        ]
    }()
}
