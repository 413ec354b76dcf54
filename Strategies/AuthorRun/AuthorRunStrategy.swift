import Foundation
import TimelineEngineCore
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// AuthorRun: when the saved post is gone, the saved author's post created closest in time to
/// it, within `Window` seconds. A reader in the middle of an author's run of posts (a thread, a
/// burst of replies) whose post was deleted lands on that author's next post rather than on a
/// stranger's post from the same minute. The search walks the time-sorted view outward from the
/// saved time, nearer side first, and visits at most `MaxVisited` posts, so a restore never scans
/// the timeline. At equal |Δt| the post lower on screen wins. Confidence is
/// `0.75 × (1 − |Δt| / Window)` (0.75 when Window is 0). It needs the snapshot's `author` and
/// `postCreatedAt`, and proposes nothing while the saved post is still there.
public struct AuthorRunStrategy: RestorationStage, DeclaredStrategy {
    public static let windowParameter = Parameter<Double>(
        "Window", help: "Largest |Δt| in seconds between the saved post's creation time and the author's post.", default: 3600, minimum: 0,
        maximum: 315_360_000)
    public static let maxVisitedParameter = Parameter<Int>(
        "MaxVisited", help: "The most posts looked at around the saved time before giving up.", default: 2000, range: 1...1_000_000)

    public static let type = StrategyType(
        name: "AuthorRun", kind: .restoration,
        summary: "Stands in the saved author's post created closest in time to the saved one, within Window seconds.",
        parameters: [windowParameter.declaration, maxVisitedParameter.declaration],
        examples: AuthorRunStrategy.scenarios
    ) { options in
        .restoration(AuthorRunStrategy(window: options(windowParameter), maxVisited: options(maxVisitedParameter)))
    }

    public let window: Double
    public let maxVisited: Int

    public init(window: Double = windowParameter.defaultValue, maxVisited: Int = maxVisitedParameter.defaultValue) {
        self.window = window
        self.maxVisited = maxVisited
    }

    public func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth: Int) -> Candidate? {
        let index = request.index
        guard let snapshot = request.snapshot, let author = snapshot.author, let savedAt = snapshot.postCreatedAt, index.count > 0,
            index.index(of: snapshot.postId) == nil
        else { return nil }
        let target = savedAt.timeIntervalSince1970
        let posts = index.posts
        var below = index.timeOrderPosition(atOrAfter: savedAt) - 1
        var above = below + 1
        var best: (index: Int, delta: Double)?
        var visited = 0
        while visited < maxVisited {
            let deltaBelow = below >= 0 ? target - index.time(atTimeOrderPosition: below) : .infinity
            let deltaAbove = above < index.count ? index.time(atTimeOrderPosition: above) - target : .infinity
            let delta = min(deltaBelow, deltaAbove)
            guard delta <= window, best.map({ delta <= $0.delta }) ?? true else { break }
            let position: Int
            if deltaAbove <= deltaBelow {
                position = above
                above += 1
            } else {
                position = below
                below -= 1
            }
            visited += 1
            let candidate = index.displayIndex(atTimeOrderPosition: position)
            if posts[candidate].author == author, best.map({ delta < $0.delta || candidate > $0.index }) ?? true {
                best = (candidate, delta)
            }
        }
        guard let best else { return nil }
        let confidence = window > 0 ? 0.75 * (1 - best.delta / window) : 0.75
        return Candidate(
            index: best.index, confidence: confidence, method: .named(name), placement: .standIn, strategy: name,
            explanation: "post \(posts[best.index].id) by \(author) was created \(TimeDistance.describe(best.delta)) from the saved post")
    }

    static let scenarios: [StrategyScenario] = {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        // Newest first; "ann" posted a thread of three, and the middle one is gone.
        let entries: [(String, String, Double)] = [
            ("p0", "bob", -30), ("p1", "ann", -60), ("p2", "cat", -170), ("p3", "bob", -185),
            ("p4", "ann", -300), ("p5", "dan", -900),
        ]
        let posts = entries.map { Post(id: $0.0, createdAt: base.addingTimeInterval($0.2), author: $0.1, height: 100) }
        let saved = PositionSnapshot(
            postId: "gone", postCreatedAt: base.addingTimeInterval(-180), index: 3, timelineCount: 7,
            author: "ann")
        var present = saved
        present.postId = "p2"
        var tie = saved
        tie.postCreatedAt = base.addingTimeInterval(-180)
        let equal = [
            Post(id: "q0", createdAt: base.addingTimeInterval(-120), author: "ann", height: 100),
            Post(id: "q1", createdAt: base.addingTimeInterval(-240), author: "ann", height: 100),
        ]
        return [
            StrategyScenario(
                name: "the author's nearest post in time, not a stranger's nearer one", timeline: Timeline(posts: posts),
                snapshot: saved,
                // 120 s to p1 and p4 alike; p4 is lower on screen. 0.75 × (1 − 120 / 3600).
                expectedPostId: "p4", expectedMethod: .named("AuthorRun"), expectedConfidence: 0.725, expectedPlacement: .standIn,
                expectedExplanation: "post p4 by ann was created 2 min from the saved post"),
            StrategyScenario(
                name: "equal distance: lower on screen wins", timeline: Timeline(posts: equal), snapshot: tie,
                expectedPostId: "q1", expectedMethod: .named("AuthorRun"), expectedConfidence: 0.7375,
                expectedExplanation: "post q1 by ann was created 60 s from the saved post"),
            StrategyScenario(
                name: "outside the window", timeline: Timeline(posts: posts), snapshot: saved,
                parameters: ["Window": Value.Member(value: .integer(100))], expectedPostId: nil),
            StrategyScenario(
                name: "the saved post is still there: nothing to stand in for", timeline: Timeline(posts: posts),
                snapshot: present, expectedPostId: nil),
            StrategyScenario(
                name: "no author saved", timeline: Timeline(posts: posts),
                snapshot: PositionSnapshot(postId: "gone", postCreatedAt: base), expectedPostId: nil),
        ]
    }()
}
