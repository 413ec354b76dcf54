import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineLoading
import TimelineEngineReachModel

@Suite("Merging a refresh into the cache", .timeLimit(.minutes(10)))
struct TimelineMergeTests {
    static let base = Date(timeIntervalSince1970: 1_700_000_000)

    /// Post `n` is `n` minutes older than the newest.
    static func post(_ n: Int, text: String? = nil) -> Post {
        Post(id: "p\(n)", createdAt: base.addingTimeInterval(Double(-60 * n)), author: "a", text: text ?? "post \(n)")
    }

    static func posts(_ numbers: [Int]) -> [Post] { numbers.map { post($0) } }

    @Test("a first page: new posts on top, edits applied, deletions within the page removed, older cached posts kept")
    func head() {
        let cached = Self.posts([3, 4, 5, 6, 7, 8, 9])
        // The source now has p1 and p2 on top, p4 edited, p5 deleted, and its page ends at p7.
        let fetched = [Self.post(1), Self.post(2), Self.post(3), Self.post(4, text: "post 4, edited"), Self.post(6), Self.post(7)]
        let merge = TimelineMerge(cached: cached, fetched: fetched, coverage: .head)
        #expect(merge.posts.map(\.id) == ["p1", "p2", "p3", "p4", "p6", "p7", "p8", "p9"])
        #expect(merge.posts[3].text == "post 4, edited")
        #expect(merge.added == ["p1", "p2"])
        #expect(merge.updated == ["p4"])
        #expect(merge.removed == ["p5"])
        #expect(merge.retained == ["p8", "p9"])
        #expect(merge.unchanged == 3)
    }

    @Test("a first page speaks for cached posts above its last shared post, even when their times are older")
    func headByPosition() {
        // An algorithmic feed: display order is not time order.
        let cached = [Self.post(9), Self.post(2), Self.post(5), Self.post(7)]
        let fetched = [Self.post(1), Self.post(5)]
        let merge = TimelineMerge(cached: cached, fetched: fetched, coverage: .head)
        // p9 and p2 were shown above p5, which the page still has: the page speaks for them.
        #expect(merge.removed == ["p9", "p2"])
        #expect(merge.posts.map(\.id) == ["p1", "p5", "p7"])
    }

    @Test("a file is the whole timeline: what it lacks is removed")
    func complete() {
        let merge = TimelineMerge(cached: Self.posts([1, 2, 3]), fetched: Self.posts([2]), coverage: .complete)
        #expect(merge.posts.map(\.id) == ["p2"])
        #expect(merge.removed == ["p1", "p3"])
        #expect(TimelineMerge(cached: Self.posts([1, 2]), fetched: [], coverage: .complete).posts.isEmpty)
    }

    @Test("a page from the middle speaks only for its own time range and keeps what lies above and below")
    func window() {
        let cached = Self.posts([1, 2, 3, 4, 5, 6, 7])
        let fetched = Self.posts([3, 5])
        let merge = TimelineMerge(cached: cached, fetched: fetched, coverage: .window)
        #expect(merge.removed == ["p4"])
        #expect(merge.retained == ["p1", "p2", "p6", "p7"])
        #expect(merge.posts.map(\.id) == ["p1", "p2", "p3", "p5", "p6", "p7"])
    }

    @Test("an empty page speaks for nothing; duplicates in an answer count once")
    func emptyAndDuplicates() {
        let cached = Self.posts([1, 2])
        let empty = TimelineMerge(cached: cached, fetched: [], coverage: .head)
        #expect(empty.posts == cached)
        #expect(empty.isEmpty)
        let doubled = TimelineMerge(cached: [], fetched: Self.posts([1, 2, 1]), coverage: .head)
        #expect(doubled.posts.map(\.id) == ["p1", "p2"])
        #expect(doubled.added == ["p1", "p2"])
    }

    @Test("a head page that does not reach the cached posts leaves a gap between them; one that overlaps leaves none")
    func headGaps() {
        let cached = Self.posts([50, 51, 52])
        let apart = TimelineMerge(cached: cached, fetched: Self.posts([1, 2, 3]), coverage: .head)
        #expect(apart.posts.map(\.id) == ["p1", "p2", "p3", "p50", "p51", "p52"])
        #expect(apart.gaps == [TimelineGap(above: "p3", below: "p50")])
        let overlapping = TimelineMerge(cached: cached, fetched: Self.posts([48, 49, 50]), coverage: .head)
        #expect(overlapping.gaps.isEmpty)
        #expect(TimelineMerge(cached: [], fetched: Self.posts([1, 2]), coverage: .head).gaps.isEmpty)
        #expect(TimelineMerge(cached: cached, fetched: Self.posts([1]), coverage: .complete).gaps.isEmpty)
    }

    @Test("a window fetched below a post sits in the gap, contiguous with that post; a gap stays on each side it does not reach")
    func windowGaps() {
        // Cached: the head page p1…p3, a gap, then p50…p52.
        let cached = Self.posts([1, 2, 3, 50, 51, 52])
        // The post p20 (asked for by id) and the page below it, p21…p23.
        let window = TimelineMerge(cached: cached, fetched: Self.posts([20, 21, 22, 23]), coverage: .window, cachedGaps: ["p3"])
        #expect(window.posts.map(\.id) == ["p1", "p2", "p3", "p20", "p21", "p22", "p23", "p50", "p51", "p52"])
        #expect(window.gaps == [TimelineGap(above: "p3", below: "p20"), TimelineGap(above: "p23", below: "p50")])
        // The next page, asked for below p23, reaches p50: the lower gap closes.
        let next = TimelineMerge(
            cached: window.posts, fetched: Self.posts([24, 25, 49, 50]), coverage: .window, cachedGaps: window.gapsBelow,
            anchors: TimelineMerge.Anchors(above: "p23"))
        #expect(next.gaps == [TimelineGap(above: "p3", below: "p20")])
        // A page asked for above p20 (min_id), reaching p3 from below: the upper gap closes too.
        let above = TimelineMerge(
            cached: next.posts, fetched: Self.posts([4, 5]), coverage: .window, cachedGaps: next.gapsBelow,
            anchors: TimelineMerge.Anchors(below: "p20"))
        #expect(above.gaps == [TimelineGap(above: "p3", below: "p4")])
        #expect(above.posts.map(\.id).prefix(6) == ["p1", "p2", "p3", "p4", "p5", "p20"])
    }

    @Test("a page asked above a post (min_id) is contiguous with it: no gap between the page and that post")
    func minIdAnchor() {
        // The cache holds p10…p12 below a gap; the page asked with min_id=p10 is p7…p9.
        let cached = Self.posts([1, 2, 10, 11, 12])
        let merge = TimelineMerge(
            cached: cached, fetched: Self.posts([7, 8, 9]), coverage: .window, cachedGaps: ["p2"],
            anchors: TimelineMerge.Anchors(below: "p10"))
        #expect(merge.posts.map(\.id) == ["p1", "p2", "p7", "p8", "p9", "p10", "p11", "p12"])
        #expect(merge.gaps == [TimelineGap(above: "p2", below: "p7")])
        // And one asked below a post (max_id) is contiguous with it from above.
        let below = TimelineMerge(
            cached: cached, fetched: Self.posts([3, 4]), coverage: .window, cachedGaps: ["p2"],
            anchors: TimelineMerge.Anchors(above: "p2"))
        #expect(below.posts.map(\.id) == ["p1", "p2", "p3", "p4", "p10", "p11", "p12"])
        #expect(below.gaps == [TimelineGap(above: "p4", below: "p10")])
    }

    @Test("a post whose claimed time is far off removes nothing the page did not cover")
    func claimedTimesRemoveNothing() {
        let cached = Self.posts(Array(10...49))
        // A head page of new posts, one of them dated years back (an author's client sets it).
        var fetched = Self.posts([1, 2, 3])
        fetched[1].createdAt = Date(timeIntervalSince1970: 1_577_836_800)
        let old = TimelineMerge(cached: cached, fetched: fetched, coverage: .head)
        #expect(old.removed == [])
        #expect(old.posts.count == 43)
        // A page below p30 with a post dated far ahead speaks only for what it shares.
        var ahead = Self.posts([31, 32])
        ahead[0].createdAt = Date(timeIntervalSince1970: 4_102_444_800)
        let window = TimelineMerge(cached: cached, fetched: ahead, coverage: .window, anchors: TimelineMerge.Anchors(above: "p30"))
        #expect(window.removed == [])
        #expect(window.posts.map(\.id) == cached.map(\.id))
    }

    @Test("a page that repeats one post of the head page (an overlap) removes nothing")
    func overlapRemovesNothing() {
        let cached = Self.posts(Array(0...39) + [100, 101, 102])
        let page = [Self.post(39)] + Self.posts([103, 104])
        let merge = TimelineMerge(
            cached: cached, fetched: page, coverage: .window, cachedGaps: ["p39"], anchors: TimelineMerge.Anchors(above: "p102"))
        #expect(merge.removed == [])
        #expect(Set(merge.posts.map(\.id)) == Set(cached.map(\.id) + ["p103", "p104"]))
    }

    @Test("a page asked below the head page that repeats one of its posts stays below it; the repeat stays where it was")
    func repeatAcrossPages() {
        let cached = Self.posts(Array(0...39))
        let pages = [
            Self.posts(Array(40...59) + [5] + Array(60...79)), Self.posts([5] + Array(40...79)), Self.posts(Array(40...79) + [5]),
            // A page that begins with the post it was asked below is contiguous through it.
            Self.posts(Array(39...79)),
        ]
        for page in pages {
            let merge = TimelineMerge(cached: cached, fetched: page, coverage: .window, anchors: TimelineMerge.Anchors(above: "p39"))
            #expect(merge.posts.map(\.id) == (0...79).map { "p\($0)" }, "\(page.map(\.id))")
            #expect(merge.gaps == [])
            #expect(merge.removed == [])
        }
        // The same above a cached post: a page asked with min_id repeating a post below it.
        let above = TimelineMerge(
            cached: Self.posts(Array(40...79)), fetched: Self.posts(Array(20...29) + [70] + Array(30...39)), coverage: .window,
            anchors: TimelineMerge.Anchors(below: "p40"))
        #expect(above.posts.map(\.id) == (20...79).map { "p\($0)" })
    }

    @Test("in an algorithmic feed a page keeps the post it brought and the cached posts it does not show")
    func algorithmicWindow() {
        // Display order is not time order: the page's times span every cached post's.
        let cached = [Self.post(5), Self.post(50), Self.post(1), Self.post(30)]
        let page = [Self.post(40), Self.post(2), Self.post(60)]
        let merge = TimelineMerge(cached: cached, fetched: page, coverage: .window, anchors: TimelineMerge.Anchors(above: "p30"))
        #expect(merge.removed == [])
        #expect(merge.posts.map(\.id) == ["p5", "p50", "p1", "p30", "p40", "p2", "p60"])
        #expect(merge.gaps == [])
    }

    @Test("a page asked with since_id that did not fill up is contiguous with that post")
    func sinceIdAnchor() {
        let cached = Self.posts([5, 6, 7])
        let merge = TimelineMerge(cached: cached, fetched: Self.posts([1, 2]), coverage: .head, anchors: TimelineMerge.Anchors(below: "p5"))
        #expect(merge.gaps == [])
        #expect(TimelineMerge(cached: cached, fetched: Self.posts([1, 2]), coverage: .head).gaps == [TimelineGap(above: "p2", below: "p5")])
    }

    @Test("a post the source says is gone leaves the cache with its gap moved to the post above it, never lost")
    func goneKeepsItsGap() {
        // Cached: p1 p2 | gap | p50 p51; p2, with the gap below it, is deleted.
        let goal = ReachGoal(postId: "p2", pagesByPost: true, maxPageSize: 40, headCursor: nil, cached: ["p1", "p2", "p50", "p51"])
        var run = ReachRun(goal: goal, strategy: ScriptedReach(requests: [.post("p2")]))
        while let request = run.next() { run.record(request, answer: PageAnswer(posts: [], found: false, bytes: 60)) }
        let merged = run.merge(into: Self.posts([1, 2, 50, 51]), gapsBelow: ["p2"])
        #expect(merged.posts.map(\.id) == ["p1", "p50", "p51"])
        #expect(merged.gapsBelow == ["p1"])
        #expect(merged.removed == ["p2"])
    }

    @Test("pages from the top that follow one another merge as one page, as they would one at a time")
    func chainedTopPagesMergeAsOne() {
        // Cached: the head page p1…p3; three pages from the top follow it, then a lookup.
        let goal = ReachGoal(postId: "p11", pagesByPost: false, maxPageSize: 3, headCursor: "c1", headLastPost: "p3", cached: ["p1", "p2", "p3"])
        let requests: [PageRequest] = [.top(cursor: "c1", limit: 3), .top(cursor: "c2", limit: 3), .top(cursor: "c3", limit: 3), .post("p11")]
        var run = ReachRun(goal: goal, strategy: ScriptedReach(requests: requests))
        let answers = [
            PageAnswer(posts: Self.posts([4, 5, 6]), cursor: "c2"), PageAnswer(posts: Self.posts([7, 8, 9]), cursor: "c3"),
            PageAnswer(posts: Self.posts([10, 11, 12]), cursor: "c4"), PageAnswer(posts: Self.posts([11])),
        ]
        for answer in answers { if let request = run.next() { run.record(request, answer: answer) } }
        #expect(run.pages.count == 1)
        #expect(run.pages.first?.posts.map(\.id) == (4...12).map { "p\($0)" })
        #expect(run.pages.first?.anchors == TimelineMerge.Anchors(above: "p3"))
        let merged = run.merge(into: Self.posts([1, 2, 3]), gapsBelow: [])
        #expect(merged.posts.map(\.id) == (1...12).map { "p\($0)" })
        #expect(merged.gapsBelow == [])
        // One page at a time gives the same timeline.
        var posts = Self.posts([1, 2, 3])
        var gaps = Set<String>()
        for (page, above) in [([4, 5, 6], "p3"), ([7, 8, 9], "p6"), ([10, 11, 12], "p9")] {
            let merge = TimelineMerge(
                cached: posts, fetched: Self.posts(page), coverage: .window, cachedGaps: gaps,
                anchors: TimelineMerge.Anchors(above: above))
            (posts, gaps) = (merge.posts, merge.gapsBelow)
        }
        #expect(posts == merged.posts)
        #expect(gaps == merged.gapsBelow)
    }

    @Test("an answer with more posts than asked is cut to those asked, or just past the reader's post; the next page then follows a gap")
    func longAnswersAreCut() {
        let long = PageAnswer(posts: Self.posts(Array(1...1_000)), cursor: "next")
        let top = long.cut(for: .top(cursor: "c", limit: 100), keeping: "p5000")
        #expect(top.posts.map(\.id) == (1...100).map { "p\($0)" })
        #expect(top.cut == 900)
        let throughGoal = long.cut(for: .top(cursor: "c", limit: 100), keeping: "p600")
        #expect(throughGoal.posts.count == 700)
        #expect(throughGoal.posts.last?.id == "p700")
        #expect(throughGoal.cut == 300)
        let above = long.cut(for: .above(post: "p1001", limit: 40), keeping: "p5000")
        #expect(above.posts.map(\.id) == (961...1_000).map { "p\($0)" })
        #expect(above.cut == 960)
        let aboveGoal = long.cut(for: .above(post: "p1001", limit: 40), keeping: "p100")
        #expect(aboveGoal.posts.first?.id == "p60")
        #expect(long.cut(for: .post("p1"), keeping: "p1").posts.map(\.id) == ["p1"])
        #expect(PageAnswer(posts: Self.posts([1, 2])).cut(for: .top(cursor: "c", limit: 100), keeping: "p9").cut == 0)

        // The page after a cut one is not contiguous with it: a gap stays between them.
        let goal = ReachGoal(postId: "p150", pagesByPost: false, maxPageSize: 3, headCursor: "c1", headLastPost: "p0", cached: ["p0"])
        var run = ReachRun(goal: goal, strategy: ScriptedReach(requests: [.top(cursor: "c1", limit: 3), .top(cursor: "c2", limit: 3)]))
        for answer in [PageAnswer(posts: Self.posts(Array(1...100)), cursor: "c2"), PageAnswer(posts: Self.posts([101, 102, 103]), cursor: "c3")] {
            if let request = run.next() { run.record(request, answer: answer) }
        }
        #expect(run.exchanges.map(\.answer.posts.count) == [3, 3])
        #expect(run.pages.count == 2)
        let merged = run.merge(into: Self.posts([0]), gapsBelow: [])
        #expect(merged.posts.map(\.id) == ["p0", "p1", "p2", "p3", "p101", "p102", "p103"])
        #expect(merged.gapsBelow == ["p3"])
    }

    @Test("a page asked with one post as both its anchors (max_id=X&min_id=X) places that post once")
    func sameAnchorTwice() {
        let merge = TimelineMerge(
            cached: Self.posts([15]), fetched: [], coverage: .window, anchors: TimelineMerge.Anchors(above: "p15", below: "p15"))
        #expect(merge.posts.map(\.id) == ["p15"])
        let page = TimelineMerge(
            cached: Self.posts([1, 15, 30]), fetched: Self.posts([16]), coverage: .window,
            anchors: TimelineMerge.Anchors(above: "p15", below: "p15"))
        #expect(Set(page.posts.map(\.id)).count == page.posts.count)
    }

    @Test("a measured height survives a refresh that carries none")
    func heights() {
        var measured = Self.post(1)
        measured.height = 240
        let merge = TimelineMerge(cached: [measured], fetched: [Self.post(1)], coverage: .head)
        #expect(merge.posts[0].height == 240)
        #expect(merge.isEmpty)
    }
}

@Suite("Sources from the command line", .timeLimit(.minutes(10)))
struct TimelineSourceTests {
    @Test("paths and file URLs are files; http(s) URLs are told apart by their path or --api")
    func parse() throws {
        #expect(try TimelineSource.parse("timeline.jsonl") == .file(path: "timeline.jsonl", format: nil))
        #expect(try TimelineSource.parse("file:///tmp/t.json") == .file(path: "/tmp/t.json", format: nil))
        let mastodon = try TimelineSource.parse("https://mastodon.social/api/v1/timelines/home?limit=40")
        #expect(mastodon == .mastodon(URL(string: "https://mastodon.social/api/v1/timelines/home?limit=40")!, tokenVariable: "ENGINE_ACCESS_TOKEN"))
        let bluesky = try TimelineSource.parse("https://bsky.social/xrpc/app.bsky.feed.getTimeline", tokenVariable: "BSKY")
        #expect(bluesky == .bluesky(URL(string: "https://bsky.social/xrpc/app.bsky.feed.getTimeline")!, tokenVariable: "BSKY"))
        #expect(
            try TimelineSource.parse("https://example.com/feed", api: .bluesky)
                == .bluesky(URL(string: "https://example.com/feed")!, tokenVariable: "ENGINE_ACCESS_TOKEN"))
    }

    @Test("what cannot be a source is refused with the reason")
    func refused() {
        for (text, message) in [
            ("ftp://example.com/t.json", "ftp://example.com/t.json: error: only http, https and file URLs are sources"),
            ("https://", "https://: error: is not a valid URL"),
            (
                "https://example.com/feed",
                "https://example.com/feed: error: cannot tell the API from the URL; give --api mastodon or --api bluesky (Mastodon: /api/v1/timelines/home, Bluesky: /xrpc/app.bsky.feed.getTimeline)"
            ),
        ] {
            #expect(throws: SourceError.self) { try TimelineSource.parse(text) }
            do {
                _ = try TimelineSource.parse(text)
            } catch {
                #expect(error.description == message)
            }
        }
    }
}

/// A reach strategy that asks the requests it is given, in order: for tests of `ReachRun`.
struct ScriptedReach: ReachStrategy {
    let requests: [PageRequest]
    var name: String { "Scripted" }

    func next(toward goal: ReachGoal, after exchanges: [ReachExchange]) -> PageRequest? {
        exchanges.count < requests.count ? requests[exchanges.count] : nil
    }
}
