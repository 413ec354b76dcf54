import Foundation
import TimelineEngineKit

/// NextUnread: when the saved post is gone, the newest post older than it, the next one a reader
/// scrolling down a reverse-chronological feed had not read yet, if it is at most `MaxGap`
/// seconds older. Confidence is the `Confidence` parameter. Found by binary search over the
/// time-sorted view.
public struct NextUnreadStrategy: RestorationStage, DeclaredStrategy {
    public static let maxGapParameter = Parameter<Double>(
        "MaxGap", help: "How much older than the saved post, in seconds, the next unread post may be.", default: 900, minimum: 0)
    public static let confidenceParameter = Parameter<Double>(
        "Confidence", help: "The confidence it answers with.", default: 0.6, range: 0...1)

    public static let type = StrategyType(
        name: "NextUnread", kind: .restoration,
        summary: "Stands in the newest post older than the saved one: the next one the reader had not read.",
        parameters: [maxGapParameter.declaration, confidenceParameter.declaration],
        examples: scenarios
    ) { options in
        .restoration(NextUnreadStrategy(maxGap: options(maxGapParameter), confidence: options(confidenceParameter)))
    }

    public let maxGap: Double
    public let confidence: Double

    public init(maxGap: Double = maxGapParameter.defaultValue, confidence: Double = confidenceParameter.defaultValue) {
        self.maxGap = maxGap
        self.confidence = confidence
    }

    public func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth: Int) -> Candidate? {
        let index = request.index
        guard let snapshot = request.snapshot, let savedAt = snapshot.postCreatedAt, index.index(of: snapshot.postId) == nil else {
            return nil
        }
        // The last time-order position strictly before the saved time.
        let position = index.timeOrderPosition(atOrAfter: savedAt) - 1
        guard position >= 0 else { return nil }
        let gap = savedAt.timeIntervalSince1970 - index.time(atTimeOrderPosition: position)
        guard gap <= maxGap else { return nil }
        let chosen = Int(index.timeOrder[position])
        return Candidate(
            index: chosen, confidence: confidence, method: .named(name), placement: .postAtTop, strategy: name,
            explanation: "post \(index.posts[chosen].id) is the newest post older than the saved one, by \(Int(gap)) s")
    }

    static let scenarios: [StrategyScenario] = {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let posts = [0, -60, -300, -4000].enumerated().map { Post(id: "p\($0.offset)", createdAt: base.addingTimeInterval(Double($0.element))) }
        return [
            StrategyScenario(
                name: "the newest older post", timeline: Timeline(posts: posts),
                snapshot: PositionSnapshot(postId: "gone", postCreatedAt: base.addingTimeInterval(-100)),
                expectedPostId: "p2", expectedConfidence: 0.6,
                expectedExplanation: "post p2 is the newest post older than the saved one, by 200 s"),
            StrategyScenario(
                name: "nothing older within MaxGap", timeline: Timeline(posts: posts),
                snapshot: PositionSnapshot(postId: "gone", postCreatedAt: base.addingTimeInterval(-1000)), expectedPostId: nil),
        ]
    }()
}
