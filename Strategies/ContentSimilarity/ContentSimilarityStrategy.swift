import Foundation
import StrategyKit
import TimelineCore
import ValueTree

/// ContentSimilarity: the post whose text is most similar to the saved text, by TF-IDF cosine
/// similarity over words (`TextIndex`), at least `Threshold`. It finds a post deleted and
/// re-drafted under a new id with the same or a lightly edited text. Confidence is the
/// similarity.
///
/// TF-IDF cosine rather than MinHash: posts are short (tens of words), where MinHash estimates
/// are noisy unless many hash functions are used; cosine is exact and deterministic, weighs rare
/// words above common ones, and an inverted index keeps a restore from scanning every text.
public struct ContentSimilarityStrategy: RestorationStage, DeclaredStrategy {
    public static let thresholdParameter = Parameter<Double>(
        "Threshold", help: "Least cosine similarity (0 to 1) a candidate needs.", default: 0.3, range: 0...1)

    public static let type = StrategyType(
        name: "ContentSimilarity", kind: .restoration,
        summary: "Finds the post whose text is most similar to the saved text (TF-IDF cosine).",
        parameters: [thresholdParameter.declaration],
        scenarios: ContentSimilarityStrategy.scenarios
    ) { options in
        .restoration(ContentSimilarityStrategy(threshold: options(thresholdParameter)))
    }

    public let threshold: Double

    public init(threshold: Double = thresholdParameter.defaultValue) {
        self.threshold = threshold
    }

    public func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth: Int) -> Candidate? {
        guard let text = request.snapshot?.text, !text.isEmpty, request.index.count > 0 else { return nil }
        // Where the saved post was: its stand-ins are looked for there as well as at the top.
        let near = request.snapshot?.index.map { min(max(0, $0), request.index.count - 1) }
        guard let best = request.index.textIndex.mostSimilar(to: text, threshold: max(threshold, 1e-9), limit: 1, near: near).first else {
            return nil
        }
        let post = request.index.posts[best.text]
        return Candidate(
            index: best.text, confidence: best.similarity, method: .contentSimilarity, placement: .standIn, strategy: name,
            explanation: "post \(post.id) has the most similar text (cosine \(String(format: "%.2f", best.similarity)))")
    }

    static let scenarios: [StrategyScenario] = {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let texts = [
            "Our new paper on reading position restoration in federated timelines is out today",
            "Lunch was great, the soup especially",
            "Thread: how we rebuilt the timeline cache and what broke along the way",
            "Weather is grey again in the north",
        ]
        var posts = texts.enumerated().map { Post(id: "p\($0.offset)", createdAt: base.addingTimeInterval(Double(-100 * $0.offset)), text: $0.element) }
        let snapshot = PositionSnapshot(postId: "old2", text: "Thread: how we rebuilt the timeline cache, and what broke on the way")
        posts[2].id = "redraft2"
        return [
            StrategyScenario(name: "re-drafted under a new id", timeline: Timeline(posts: posts), snapshot: snapshot,
                             // The TF-IDF cosine of the two texts over these four, by the formula in TextIndex.
                             expectedPostId: "redraft2", expectedMethod: .contentSimilarity, expectedConfidence: 0.917_816_838,
                             expectedPlacement: .standIn, expectedExplanation: "post redraft2 has the most similar text (cosine 0.92)"),
            StrategyScenario(name: "nothing similar", timeline: Timeline(posts: posts),
                             snapshot: PositionSnapshot(postId: "x", text: "Completely unrelated words here"), expectedPostId: nil),
        ]
    }()
}
