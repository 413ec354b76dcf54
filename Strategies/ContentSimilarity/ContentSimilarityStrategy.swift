import Foundation
import TimelineEngineCore
import TimelineEngineRestorationModel
import TimelineEngineSearch
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// ContentSimilarity: the post whose text is most similar to the saved text, by TF-IDF cosine
/// similarity over words (`TextIndex`), at least `Threshold`. It finds a post deleted and
/// re-drafted under a new id with the same or a lightly edited text. A redraft is written by the
/// same account after its original, so where the saved post's author or creation time is
/// known, a post by another account, or created before it or in the same instant, is no
/// stand-in: a post it reposted or quoted, a repost of it, or the next post of a thread or a bot
/// posted within the same second, whose text it repeats. A redraft is also written after the
/// original was deleted, which is after the reader saw it: a post created more than `ClockSlack`
/// seconds before the position was saved stood beside the saved post then, and is another post
/// that reads alike (a bot's or a template's), not its redraft. The saved post itself, still
/// there, is its own best match. Confidence is the similarity.
///
/// TF-IDF cosine rather than MinHash: posts are short (tens of words), where MinHash estimates
/// are noisy unless many hash functions are used; cosine is exact and deterministic, weighs rare
/// words above common ones, and an inverted index keeps a restore from scanning every text.
public struct ContentSimilarityStrategy: RestorationStage, DeclaredStrategy {
    public static let thresholdParameter = Parameter<Double>(
        "Threshold", help: "Least cosine similarity (0 to 1) a candidate needs.", default: 0.3, range: 0...1)

    public static let clockSlackParameter = Parameter<Double>(
        "ClockSlack",
        help:
            "Seconds a redraft may seem to predate the saved position, for clocks that disagree; a post created earlier stood beside the saved one and is no stand-in.",
        default: 600, minimum: 0, maximum: 315_360_000)

    public static let type = StrategyType(
        name: "ContentSimilarity", kind: .restoration,
        summary: "Finds the post whose text is most similar to the saved text (TF-IDF cosine).",
        parameters: [thresholdParameter.declaration, clockSlackParameter.declaration],
        examples: ContentSimilarityStrategy.scenarios
    ) { options in
        .restoration(ContentSimilarityStrategy(threshold: options(thresholdParameter), clockSlack: options(clockSlackParameter)))
    }

    public let threshold: Double
    public let clockSlack: Double

    public init(threshold: Double = thresholdParameter.defaultValue, clockSlack: Double = clockSlackParameter.defaultValue) {
        self.threshold = threshold
        self.clockSlack = clockSlack
    }

    public func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth: Int) -> Candidate? {
        guard let text = request.snapshot?.text, !text.isEmpty, request.index.count > 0 else { return nil }
        // Where the saved post was: its stand-ins are looked for there as well as at the top.
        let near = request.snapshot?.index.map { min(max(0, $0), request.index.count - 1) }
        let created = request.snapshot?.postCreatedAt
        let author = request.snapshot?.author
        let saved = request.snapshot?.postId
        let standingThen = request.snapshot?.savedAt?.addingTimeInterval(-clockSlack)
        let posts = request.index.posts
        let similar = request.index.textIndex.mostSimilar(
            to: text, threshold: max(threshold, 1e-9), limit: created == nil && author == nil ? 1 : 8,
            near: near)
        if let best = similar.first(where: { candidate in
            let post = posts[candidate.text]
            if post.id == saved { return true }
            if let created, post.createdAt <= created { return false }
            if let standingThen, post.createdAt < standingThen { return false }
            if let author, let other = post.author, other != author { return false }
            return true
        }) {
            let post = request.index.posts[best.text]
            return Candidate(
                index: best.text, confidence: best.similarity, method: .contentSimilarity, placement: .standIn, strategy: name,
                explanation: "post \(post.id) has the most similar text (cosine \(String(format: "%.2f", best.similarity)))")
        }
        return redraftByCharacters(request, text: text)
    }

    /// A redraft whose words changed too much for TF-IDF on a short text ("@kfc 😆😆" re-posted as
    /// "@kf 😆😆": one word of two changed): among the author's posts written after the saved one
    /// and not more than `ClockSlack` before it was saved, a small set (they are the newest, found
    /// in the time order), the one nearest by edit distance, if it is within a few edits (at most
    /// 3, or a tenth of the longer text) and keeps at least `Threshold` of its characters
    /// (1 − distance ÷ the longer length). A bot's next post that shares a long tail of hashtags
    /// is further than that.
    func redraftByCharacters(_ request: RestorationRequest, text: String) -> Candidate? {
        guard let snapshot = request.snapshot, let author = snapshot.author, let created = snapshot.postCreatedAt else { return nil }
        let index = request.index
        let since = max(created, snapshot.savedAt.map { $0.addingTimeInterval(-clockSlack) } ?? created)
        let saved = Array(text.unicodeScalars)
        var best: (index: Int, similarity: Double)?
        var position = index.timeOrderPosition(atOrAfter: since)
        while position < index.count {
            let candidate = index.displayIndex(atTimeOrderPosition: position)
            position += 1
            let post = index.posts[candidate]
            guard post.createdAt > created, post.author == author, post.id != snapshot.postId, let other = post.text,
                let similarity = Self.redraftSimilarity(saved, Array(other.unicodeScalars))
            else { continue }
            if similarity >= threshold, similarity > (best?.similarity ?? 0) { best = (candidate, similarity) }
        }
        guard let best else { return nil }
        let post = index.posts[best.index]
        return Candidate(
            index: best.index, confidence: best.similarity, method: .contentSimilarity, placement: .standIn, strategy: name,
            explanation: "post \(post.id) is the author's later post nearest in characters (\(String(format: "%.2f", best.similarity)) kept)")
    }

    /// The most edits a redraft makes to a text of `length` characters: 3, or a tenth of it.
    static func redraftEdits(length: Int) -> Int { max(3, length / 10) }

    /// 1 − the edit distance between `a` and `b` ÷ the longer length, when the distance is within
    /// `redraftEdits`; nil beyond it (computed only as far as it can stay within).
    static func redraftSimilarity(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Double? {
        let longer = max(a.count, b.count)
        let limit = redraftEdits(length: longer)
        guard longer > 0 else { return 1 }
        guard abs(a.count - b.count) <= limit, !a.isEmpty, !b.isEmpty else { return nil }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                rowMinimum = min(rowMinimum, current[j])
            }
            if rowMinimum > limit { return nil }
            swap(&previous, &current)
        }
        let distance = previous[b.count]
        return distance <= limit ? 1 - Double(distance) / Double(longer) : nil
    }

    static let scenarios: [StrategyScenario] = {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let texts = [
            "Our new paper on reading position restoration in federated timelines is out today",
            "Lunch was great, the soup especially",
            "Thread: how we rebuilt the timeline cache and what broke along the way",
            "Weather is grey again in the north",
        ]
        var posts = texts.enumerated().map {
            Post(id: "p\($0.offset)", createdAt: base.addingTimeInterval(Double(-100 * $0.offset)), text: $0.element)
        }
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
        // A bot's thread: two posts in the same second that read almost alike.
        var deletedInThread = PositionSnapshot(postId: "t1", postCreatedAt: base, text: "Daily build 1042 passed: 312 tests, 0 failures, 4 skipped")
        deletedInThread.author = "erin"
        // A two-word post deleted and re-posted with one word shortened, a minute after it was saved.
        var shortDeleted = PositionSnapshot(
            postId: "short", postCreatedAt: base.addingTimeInterval(-600), text: "@kfc 😆😆",
            savedAt: base.addingTimeInterval(-120))
        shortDeleted.author = "hana"
        let shortRedraft = [
            Post(id: "unrelated", createdAt: base.addingTimeInterval(-30), author: "hana", text: "lunch was great"),
            Post(id: "short-redraft", createdAt: base.addingTimeInterval(-60), author: "hana", text: "@kf 😆😆"),
        ]
        // Saved an hour after its post was written (an hour before `base`).
        var savedLater = PositionSnapshot(
            postId: "t0", postCreatedAt: base.addingTimeInterval(-7_200),
            text: "Daily build 1042 passed: 312 tests, 0 failures, 4 skipped", savedAt: base.addingTimeInterval(-3_600))
        savedLater.author = "erin"
        let thread = [
            Post(id: "t2", createdAt: base, author: "erin", text: "Daily build 1042 passed: 312 tests, 0 failures, 5 skipped"),
            Post(id: "other", createdAt: base.addingTimeInterval(-60), author: "frank", text: "Weather is grey again in the north"),
        ]
        return [
            StrategyScenario(
                name: "re-drafted under a new id", timeline: Timeline(posts: posts), snapshot: snapshot,
                // The TF-IDF cosine of the two texts over these four, by the formula in TextIndex.
                expectedPostId: "redraft2", expectedMethod: .contentSimilarity, expectedConfidence: 0.917_816_838,
                expectedPlacement: .standIn, expectedExplanation: "post redraft2 has the most similar text (cosine 0.92)"),
            StrategyScenario(
                name: "nothing similar", timeline: Timeline(posts: posts),
                snapshot: PositionSnapshot(postId: "x", text: "Completely unrelated words here"), expectedPostId: nil),
            StrategyScenario(
                name: "a repost by another account, or a post the deleted one repeated, is no stand-in; the author's later redraft is",
                timeline: Timeline(posts: reposts), snapshot: deletedRepost, expectedPostId: "redraft", expectedMethod: .contentSimilarity,
                expectedPlacement: .standIn),
            StrategyScenario(
                name: "only reposts of the deleted post by other accounts: no stand-in", timeline: Timeline(posts: Array(reposts.prefix(3))),
                snapshot: deletedRepost, expectedPostId: nil),
            StrategyScenario(
                name: "the next post of a thread, posted in the same second, is no stand-in for a deleted one",
                timeline: Timeline(posts: thread), snapshot: deletedInThread, expectedPostId: nil),
            StrategyScenario(
                name: "a post that reads alike but stood beside the saved one when it was saved is no redraft",
                timeline: Timeline(posts: [
                    Post(
                        id: "template", createdAt: base.addingTimeInterval(-5_000), author: "erin",
                        text: "Daily build 1042 passed: 312 tests, 0 failures, 4 skipped")
                ]),
                snapshot: savedLater, expectedPostId: nil),
            StrategyScenario(
                name: "within ClockSlack of the save, a post may be the redraft of a device whose clock runs ahead",
                timeline: Timeline(posts: [
                    Post(
                        id: "redraft", createdAt: base.addingTimeInterval(-5_000), author: "erin",
                        text: "Daily build 1042 passed: 312 tests, 0 failures, 4 skipped")
                ]),
                snapshot: savedLater, parameters: ["ClockSlack": .init(value: .real(3_600))], expectedPostId: "redraft"),
            StrategyScenario(
                name: "a short post re-drafted with a word shortened: too few words for TF-IDF, found by its characters",
                timeline: Timeline(posts: shortRedraft), snapshot: shortDeleted, parameters: ["Threshold": .init(value: .real(0.8))],
                expectedPostId: "short-redraft", expectedMethod: .contentSimilarity,
                // One scalar of seven removed: 1 − 1 ÷ 7.
                expectedConfidence: 0.857_142_857, expectedPlacement: .standIn,
                expectedExplanation: "post short-redraft is the author's later post nearest in characters (0.86 kept)"),
            StrategyScenario(
                name: "another account's later post that reads alike is no redraft, however near in characters",
                timeline: Timeline(posts: [
                    shortRedraft[0],
                    Post(
                        id: "other", createdAt: base.addingTimeInterval(-50), author: "gil",
                        text: "@kfc 😆😆!"),
                ]),
                snapshot: shortDeleted, parameters: ["Threshold": .init(value: .real(0.8))], expectedPostId: nil),
            StrategyScenario(
                name: "the saved post itself, still there, is its own best match",
                timeline: Timeline(posts: thread + [Post(id: "t1", createdAt: base, author: "erin", text: deletedInThread.text)]),
                snapshot: deletedInThread, expectedPostId: "t1", expectedConfidence: 1),
        ]
    }()
}
