import Foundation
import Testing
import TimelineEngineCore
import TimelineEnginePostWindow
import TimelineEngineReachModel
import TimelineEngineSimulatedServer

/// Pages asked by time: the cursor's shapes, the simulated AppView's keyset, what an answer must
/// show before it is used, and the pages and findings a run makes of it.
@Suite("Reaching a post by its time", .timeLimit(.minutes(2)))
struct TimeKeyedReachTests {
    static let base = Date(timeIntervalSince1970: 1_700_000_000)

    /// Post `n` (0 the newest): id "p<n>", written n minutes before the base.
    static func post(_ n: Int) -> Post {
        Post(id: "p\(n)", createdAt: base.addingTimeInterval(Double(-60 * n)), author: "a", text: "post \(n)")
    }

    static func posts(_ numbers: some Sequence<Int>) -> [Post] { numbers.map(post) }

    @Test("a time-keyed cursor is read in the AppView's shape and its kin, and written back in the same shape")
    func cursorShapes() throws {
        let appView = try #require(TimeKeyedCursor("1700000000123__bafyreiabc"))
        #expect(appView.time == Date(timeIntervalSince1970: 1_700_000_000.123))
        #expect(appView.secondary == "bafyreiabc")
        #expect(appView.description == "1700000000123__bafyreiabc")
        #expect(appView.moved(to: Date(timeIntervalSince1970: 1_600_000_000)).description == "1600000000000__bafyreiabc")
        #expect(TimeKeyedCursor("1670446000000::bafyreicursor")?.description == "1670446000000::bafyreicursor")
        let dated = try #require(TimeKeyedCursor("2024-11-27T10:00:00.123Z::bafy1"))
        #expect(dated.format == .rfc3339)
        #expect(dated.moved(to: Date(timeIntervalSince1970: 0)).description == "1970-01-01T00:00:00.000Z::bafy1")
        for opaque in [
            "i:40", "", "abc", "1700000000123__", "__bafy", "1700000000123__a__b", "1700000000123__bafy-x", "17__bafy", "eyJvZmZzZXQiOjQwfQ==",
        ] {
            #expect(TimeKeyedCursor(opaque) == nil, "\(opaque)")
        }
    }

    @Test("the simulated AppView honours any time-keyed cursor; an opaque server and one that takes only its own refuse it")
    func serverCursors() throws {
        var feed = PagedTimeline.bluesky(Self.posts(0..<300))
        let head = feed.head(limit: 40)
        let cursor = try #require(head.cursor.flatMap(TimeKeyedCursor.init))
        #expect(cursor.time == Self.post(39).createdAt)
        #expect(feed.answer(.top(cursor: cursor.description, limit: 100)).posts.first?.id == "p40")
        // A cursor at post 200's time and a half minute: the page begins with post 200.
        let made = cursor.moved(to: Self.post(200).createdAt.addingTimeInterval(30)).description
        #expect(feed.accepts(cursor: made))
        let page = feed.answer(.keyed(cursor: made, limit: 100))
        #expect(page.posts.map(\.id) == (200..<300).map { "p\($0)" })
        #expect(page.cursor == nil)
        #expect(feed.answer(.keyed(cursor: made, limit: 10)).cursor != nil)
        feed.cursors = .issuedOnly
        #expect(!feed.accepts(cursor: made))
        #expect(feed.answer(.keyed(cursor: made, limit: 100)).posts.isEmpty)
        #expect(feed.accepts(cursor: cursor.description))
        feed.cursors = .opaque
        #expect(feed.head(limit: 40).cursor == "i:40")
        #expect(!feed.accepts(cursor: made))
        #expect(feed.answer(.keyed(cursor: made, limit: 100)).posts.isEmpty)
        // Mastodon pages by id: a page by time is not asked of it.
        #expect(PagedTimeline.mastodon(Self.posts(0..<300)).answer(.keyed(cursor: made, limit: 40)).posts.isEmpty)
    }

    /// The goal of reaching post `target` with a head page of posts 0…39 and its time-keyed cursor.
    static func goal(_ target: Int) -> ReachGoal {
        let feed = PagedTimeline.bluesky(posts(0..<300))
        let head = feed.head(limit: 40)
        var goal = ReachGoal(
            postId: "p\(target)", postCreatedAt: post(target).createdAt, pagesByPost: false, maxPageSize: 100, headCursor: head.cursor,
            headLastPost: "p39", cached: Set(head.posts.map(\.id)))
        goal.headPageSpacing = ReachGoal.spacing(of: head.posts)
        return goal
    }

    static func keyed(_ goal: ReachGoal, _ posts: [Post], cursor: String? = nil) throws -> [ReachExchange] {
        let request = try #require(goal.timeKeyedPage(limit: 100))
        return [ReachExchange(request: request, answer: PageAnswer(posts: posts, cursor: cursor))]
    }

    @Test("the page by time starts three posts' spacing above the post, and only below the head page")
    func keyedRequest() throws {
        let goal = Self.goal(200)
        #expect(goal.headPageSpacing == 60)
        let request = try #require(goal.timeKeyedPage(limit: 100))
        let expected = Int64(Self.post(200).createdAt.addingTimeInterval(180).timeIntervalSince1970 * 1000)
        guard case .keyed(let cursor, 100) = request else {
            Issue.record("\(request)")
            return
        }
        #expect(cursor.hasPrefix("\(expected)__bafyrei"))
        #expect(Self.goal(38).timeKeyedPage(limit: 100) == nil)
        var opaque = Self.goal(200)
        opaque.headCursor = "i:40"
        #expect(opaque.timeKeyedPage(limit: 100) == nil)
        var unknownTime = Self.goal(200)
        unknownTime.postCreatedAt = nil
        #expect(unknownTime.timeKeyedPage(limit: 100) == nil)
    }

    @Test("an answer is used only when it shows the cursor honoured: in time order, nothing newer than the cursor")
    func verdicts() throws {
        let goal = Self.goal(200)
        #expect(goal.timeKeyedVerdict(in: []) == nil)
        #expect(goal.timeKeyedVerdict(in: try Self.keyed(goal, Self.posts(197..<297))) == .holdsPost)
        #expect(goal.timeKeyedVerdict(in: try Self.keyed(goal, Self.posts([197, 198, 199, 201, 202]))) == .coversTime)
        #expect(goal.timeKeyedVerdict(in: try Self.keyed(goal, Self.posts([198, 199]), cursor: "next")) == .above(cursor: "next"))
        #expect(goal.timeKeyedVerdict(in: try Self.keyed(goal, Self.posts([198, 199]))) == .coversTime)
        // Refused (empty), the head page again (a server that ignored the cursor), out of order.
        #expect(goal.timeKeyedVerdict(in: try Self.keyed(goal, [])) == .setAside)
        #expect(goal.timeKeyedVerdict(in: try Self.keyed(goal, Self.posts(0..<100))) == .setAside)
        #expect(goal.timeKeyedVerdict(in: try Self.keyed(goal, Self.posts([199, 250, 200]))) == .setAside)
        // A page from the top that continues the page by time is judged with it.
        var chain = try Self.keyed(goal, Self.posts([198, 199]), cursor: "c2")
        chain.append(ReachExchange(request: .top(cursor: "c2", limit: 100), answer: PageAnswer(posts: Self.posts(200..<205))))
        #expect(goal.timeKeyedVerdict(in: chain) == .holdsPost)
        #expect(goal.timeKeyedChain(in: chain).count == 2)
    }

    @Test("an answer set aside (out of order, or newer than the cursor) neither reaches the post nor is merged")
    func setAsideNotMerged() throws {
        let goal = Self.goal(200)
        let request = try #require(goal.timeKeyedPage(limit: 100))
        for posts in [Self.posts([199, 250, 200, 201]), Self.posts([5, 6, 200, 201])] {
            var run = ReachRun(goal: goal, strategy: PostWindowReach())
            run.record(request, answer: PageAnswer(posts: posts))
            #expect(goal.timeKeyedVerdict(in: run.exchanges) == .setAside)
            #expect(run.outcome == .unreached)
            #expect(run.pages.isEmpty)
            let merged = run.merge(into: Self.posts(0..<40), gapsBelow: [])
            #expect(merged.posts.map(\.id) == Self.posts(0..<40).map(\.id))
            // The strategy goes on from the top, and what it finds there is merged.
            #expect(run.next() == .top(cursor: try #require(goal.headCursor), limit: 100))
        }
    }

    @Test("a page by time sits by itself in the cache, with a gap on each side; a deleted post's neighbours come from it")
    func pagesAndFindings() throws {
        let goal = Self.goal(200)
        var run = ReachRun(goal: goal, strategy: PostWindowReach())
        let feed = PagedTimeline.bluesky(Self.posts(0..<300), deleted: ["p200"])
        while let request = run.next() { run.record(request, answer: feed.answer(request)) }
        #expect(run.exchanges.map(\.request.isKeyed) == [true, false])
        #expect(run.exchanges.last?.request == .post("p200"))
        #expect(run.outcome == .gone)
        #expect(run.findings == ReachFindings(gone: ["p200"], survivorBelow: "p201", survivorAbove: "p199"))
        #expect(run.pages.count == 1)
        #expect(run.pages.first?.anchors == TimelineMerge.Anchors())
        let merged = run.merge(into: Self.posts(0..<40), gapsBelow: [])
        #expect(merged.posts.first { $0.id == "p200" } == nil)
        #expect(TimelineGap.gaps(in: merged.posts, below: merged.gapsBelow).map(\.above) == ["p39"])
        // The cursor is post 197's time to the millisecond: the CID decides whether it is in.
        #expect(["p197", "p198"].contains(merged.posts[40].id))
    }
}
