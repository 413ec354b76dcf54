import Foundation
import StrategyKit
import TimelineCore
import ValueTree

/// ContentSimilarity: the post whose text is most similar to the saved text, by TF-IDF cosine
/// similarity over words (`TextIndex`), at least `Threshold`. It finds a post deleted and
/// re-drafted under a new id with the same or a lightly edited text. A redraft is written by the
/// same account after its original, so where the saved post's author or creation time is
/// known, a post by another account or created before it is no stand-in: a post it reposted or
/// quoted, or a repost of it, whose text it repeats. Confidence is the similarity.
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
        let created = request.snapshot?.postCreatedAt, author = request.snapshot?.author
        let posts = request.index.posts
        let similar = request.index.textIndex.mostSimilar(to: text, threshold: max(threshold, 1e-9), limit: created == nil && author == nil ? 1 : 8,
                                                          near: near)
        guard let best = similar.first(where: { candidate in
            let post = posts[candidate.text]
            if let created, post.createdAt < created { return false }
            if let author, let other = post.author, other != author { return false }
            return true
        }) else { return nil }
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
        // Alice's post repeated the text of Bob's (a repost), and was deleted: Bob's original,
        // older, and Carol's later repost of Alice's are not where she was; her redraft is.
        let text = "Kruskal-Wallis statistic and p-value matrix loop for data subsets in R"
        var deletedRepost = PositionSnapshot(postId: "gone", postCreatedAt: base.addingTimeInterval(-500), text: "RT @bob: " + text)
        deletedRepost.author = "alice"
        let reposts = [
            Post(id: "carol-repost", createdAt: base.addingTimeInterval(-100), author: "carol", text: "RT @alice: RT @bob: " + text),
            Post(id: "lunch", createdAt: base.addingTimeInterval(-200), author: "dave", text: "Lunch was great, the soup especially"),
            Post(id: "bob-original", createdAt: base.addingTimeInterval(-900), author: "bob", text: text),
            Post(id: "redraft", createdAt: base.addingTimeInterval(-300), author: "alice", text: "RT @bob: the " + text + " (fixed)"),
        ]
        return [
            StrategyScenario(name: "re-drafted under a new id", timeline: Timeline(posts: posts), snapshot: snapshot,
                             // The TF-IDF cosine of the two texts over these four, by the formula in TextIndex.
                             expectedPostId: "redraft2", expectedMethod: .contentSimilarity, expectedConfidence: 0.917_816_838,
                             expectedPlacement: .standIn, expectedExplanation: "post redraft2 has the most similar text (cosine 0.92)"),
            StrategyScenario(name: "nothing similar", timeline: Timeline(posts: posts),
                             snapshot: PositionSnapshot(postId: "x", text: "Completely unrelated words here"), expectedPostId: nil),
            StrategyScenario(name: "a repost by another account, or a post the deleted one repeated, is no stand-in; the author's later redraft is",
                             timeline: Timeline(posts: reposts), snapshot: deletedRepost, expectedPostId: "redraft", expectedMethod: .contentSimilarity,
                             expectedPlacement: .standIn),
            StrategyScenario(name: "only reposts of the deleted post by other accounts: no stand-in", timeline: Timeline(posts: Array(reposts.prefix(3))),
                             snapshot: deletedRepost, expectedPostId: nil),
        ]
    }()
}
