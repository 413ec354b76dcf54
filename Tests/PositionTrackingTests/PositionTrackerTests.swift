import Foundation
import Testing
import TimelineEngineCore
import TimelineEnginePositionTracking

@Suite("Position tracker, resume policy and suggestions", .timeLimit(.minutes(10)))
struct PositionTrackerTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let index = TimelineIndex(
        Timeline(
            posts: (0..<30).map {
                Post(id: "p\($0)", createdAt: start.addingTimeInterval(Double(-120 * $0)), author: "a\($0)", text: "post \($0)", height: 100)
            }, viewportHeight: 500))

    @Test("the anchor is the first post at least 30 % visible")
    func anchor() {
        let tracker = PositionTracker()
        #expect(tracker.anchorIndex(offset: 0, viewportHeight: 500, in: Self.index) == 0)
        #expect(tracker.anchorIndex(offset: 175, viewportHeight: 500, in: Self.index) == 2)
        #expect(tracker.anchorIndex(offset: 160, viewportHeight: 500, in: Self.index) == 1)
        let snapshot = tracker.capture(offset: 160, viewportHeight: 500, in: Self.index, at: Self.start)
        #expect(snapshot?.postId == "p1")
        #expect(snapshot?.viewportY == -60)
        #expect(snapshot?.neighbors.above == ["p0"])
        #expect(snapshot?.neighbors.below == ["p2", "p3", "p4", "p5", "p6"])
    }

    @Test("autosave: every AutoSaveInterval while scrolling, always on background, never on terminate")
    func autosave() {
        var tracker = PositionTracker(settings: .init(autoSaveInterval: 5, settleDelay: 100))
        let at = { (second: Double) in Self.start.addingTimeInterval(second) }
        #expect(tracker.observeScroll(offset: 0, viewportHeight: 500, in: Self.index, at: at(0)).map(\.postId) == ["p0"])
        #expect(tracker.observeScroll(offset: 300, viewportHeight: 500, in: Self.index, at: at(2)).isEmpty)
        #expect(tracker.observeScroll(offset: 600, viewportHeight: 500, in: Self.index, at: at(5)).map(\.postId) == ["p6"])
        #expect(tracker.observeScroll(offset: 900, viewportHeight: 500, in: Self.index, at: at(6)).isEmpty)
        #expect(tracker.observe(.background, at: at(7), in: Self.index).map(\.postId) == ["p9"])
        #expect(tracker.observe(.terminate, at: at(8), in: Self.index).isEmpty)
        #expect(tracker.history.map(\.postId) == ["p9", "p6", "p0"])
        tracker.observe(.launch, at: at(100))
        #expect(tracker.liveAnchor == nil)
        #expect(tracker.observe(.background, at: at(101), in: Self.index).isEmpty)
        #expect(tracker.restoreInput(at: at(102))?.postId == "p9")
    }

    @Test("the trailing save: the place where scrolling rests is saved after the settle delay")
    func trailingSave() {
        var tracker = PositionTracker(settings: .init(autoSaveInterval: 5, settleDelay: 1))
        let at = { (second: Double) in Self.start.addingTimeInterval(second) }
        #expect(tracker.observeScroll(offset: 0, viewportHeight: 500, in: Self.index, at: at(0)).map(\.postId) == ["p0"])
        #expect(tracker.observeScroll(offset: 300, viewportHeight: 500, in: Self.index, at: at(2)).isEmpty)
        #expect(tracker.observeScroll(offset: 700, viewportHeight: 500, in: Self.index, at: at(2.25)).isEmpty)
        // Scrolling rests at 2.25 s: the save is due at 3.25 s, not at 5 s.
        #expect(tracker.pendingSaveDue == at(3.25))
        #expect(tracker.settle(at: at(3.2)) == nil)
        #expect(tracker.settle(at: at(3.25))?.postId == "p7")
        #expect(tracker.lastSaveAt == at(3.25))
        #expect(tracker.pendingSaveDue == nil)
        // A save that came due between two events is made by the next one, at the time it came
        // due; the interval then counts from it.
        #expect(tracker.observeScroll(offset: 1000, viewportHeight: 500, in: Self.index, at: at(4)).isEmpty)
        #expect(tracker.observeScroll(offset: 1500, viewportHeight: 500, in: Self.index, at: at(9)).map(\.postId) == ["p10"])
        #expect(tracker.lastSaveAt == at(5))
        #expect(tracker.history.map(\.postId) == ["p10", "p7", "p0"])
        #expect(tracker.observeScroll(offset: 1600, viewportHeight: 500, in: Self.index, at: at(9.5)).isEmpty)
        #expect(tracker.observeScroll(offset: 1800, viewportHeight: 500, in: Self.index, at: at(10)).map(\.postId) == ["p18"])
    }

    @Test("while scrolling goes on, the interval still bounds the time between saves")
    func intervalWhileScrolling() {
        var tracker = PositionTracker(settings: .init(autoSaveInterval: 5, settleDelay: 1))
        var savedAt: [Double] = []
        for step in 0..<40 {
            let second = Double(step) * 0.25
            if !tracker.observeScroll(offset: Double(step * 30), viewportHeight: 500, in: Self.index, at: Self.start.addingTimeInterval(second))
                .isEmpty
            {
                savedAt.append(second)
            }
        }
        #expect(savedAt == [0, 5])
        #expect(tracker.pendingSaveDue == Self.start.addingTimeInterval(10.75))
    }

    @Test("a hard close keeps the trailing save that came due before it, and loses one that did not")
    func hardClose() {
        let at = { (second: Double) in Self.start.addingTimeInterval(second) }
        var killedLate = PositionTracker(settings: .init(autoSaveInterval: 5, settleDelay: 1))
        killedLate.observeScroll(offset: 0, viewportHeight: 500, in: Self.index, at: at(0))
        killedLate.observeScroll(offset: 1200, viewportHeight: 500, in: Self.index, at: at(2))
        #expect(killedLate.observe(.terminate, at: at(3.5)).map(\.postId) == ["p12"])
        killedLate.observe(.launch, at: at(60))
        #expect(killedLate.restoreInput(at: at(61))?.postId == "p12")

        var killedEarly = PositionTracker(settings: .init(autoSaveInterval: 5, settleDelay: 1))
        killedEarly.observeScroll(offset: 0, viewportHeight: 500, in: Self.index, at: at(0))
        killedEarly.observeScroll(offset: 1200, viewportHeight: 500, in: Self.index, at: at(2))
        #expect(killedEarly.observe(.terminate, at: at(2.5)).isEmpty)
        killedEarly.observe(.launch, at: at(60))
        #expect(killedEarly.pendingSave == nil)
        #expect(killedEarly.restoreInput(at: at(61))?.postId == "p0")
    }

    @Test("a reader who has not scrolled keeps their live anchor, however long they rest")
    func restingReader() {
        var tracker = PositionTracker(settings: .init(autoSaveInterval: 1000, settleDelay: 1000, anchorMaxAge: 30))
        tracker.observeScroll(offset: 0, viewportHeight: 500, in: Self.index, at: Self.start)
        tracker.observeScroll(offset: 1200, viewportHeight: 500, in: Self.index, at: Self.start.addingTimeInterval(1))
        #expect(tracker.restoreInput(at: Self.start.addingTimeInterval(31))?.postId == "p12")
        #expect(tracker.restoreInput(at: Self.start.addingTimeInterval(3600))?.postId == "p12")
        #expect(!tracker.liveAnchorExpired(at: Self.start.addingTimeInterval(3600)))
    }

    @Test("the live anchor expires after AnchorMaxAge in the background; a scroll renews it")
    func anchorExpiresInBackground() {
        let at = { (second: Double) in Self.start.addingTimeInterval(second) }
        let timeline = TimelineIndex(Timeline(posts: Array(Self.index.posts.dropFirst(3)), viewportHeight: 500))
        var tracker = PositionTracker(settings: .init(autoSaveInterval: 1000, settleDelay: 1000, anchorMaxAge: 30))
        tracker.observeScroll(offset: 1200, viewportHeight: 500, in: Self.index, at: at(0))
        // The background save captures the last offset against the timeline of that moment.
        #expect(tracker.observe(.background, at: at(10), in: timeline).map(\.postId) == ["p15"])
        #expect(tracker.restoreInput(at: at(40))?.postId == "p12")
        #expect(tracker.restoreInput(at: at(41))?.postId == "p15")
        tracker.observe(.foreground, at: at(41))
        #expect(tracker.liveAnchorExpired(at: at(42)))
        #expect(tracker.restoreInput(at: at(42))?.postId == "p15")
        tracker.observeScroll(offset: 200, viewportHeight: 500, in: Self.index, at: at(50))
        #expect(tracker.restoreInput(at: at(500))?.postId == "p2")

        var shortTrip = PositionTracker(settings: .init(autoSaveInterval: 1000, settleDelay: 1000, anchorMaxAge: 30))
        shortTrip.observeScroll(offset: 1200, viewportHeight: 500, in: Self.index, at: at(0))
        shortTrip.observe(.background, at: at(10), in: timeline)
        shortTrip.observe(.foreground, at: at(40))
        #expect(shortTrip.restoreInput(at: at(500))?.postId == "p12")
    }

    @Test("an offset or viewport that is not a position (infinite, NaN, beyond GeometryLimits) is ignored")
    func nonFiniteScrolls() {
        var tracker = PositionTracker(settings: .init(autoSaveInterval: 0))
        tracker.observeScroll(offset: 300, viewportHeight: 500, in: Self.index, at: Self.start)
        for (offset, height) in [(Double.nan, 500.0), (.infinity, 500), (-1e300, 500), (300, .infinity), (300, 0), (300, .nan)] {
            #expect(tracker.observeScroll(offset: offset, viewportHeight: height, in: Self.index, at: Self.start.addingTimeInterval(1)).isEmpty)
        }
        #expect(tracker.liveAnchor?.postId == "p3")
        #expect(tracker.history.map(\.postId) == ["p3"])
    }

    @Test("history is bounded, one snapshot per post, newest first")
    func history() {
        var tracker = PositionTracker(settings: .init(autoSaveInterval: 0, maxHistorySize: 3))
        for (second, offset) in [0, 100, 200, 100, 300, 400].enumerated() {
            tracker.observeScroll(offset: Double(offset), viewportHeight: 500, in: Self.index, at: Self.start.addingTimeInterval(Double(second)))
        }
        #expect(tracker.history.map(\.postId) == ["p4", "p3", "p1"])
    }

    @Test("soft and hard closes")
    func resume() {
        let policy = ResumePolicy(hardCloseThreshold: 30, afterHardClose: .suggest, silentRestoreConfidence: 0.8)
        #expect(policy.classify(lastCleanBackground: Self.start, returnedAt: Self.start.addingTimeInterval(30), hasHistory: true) == .soft)
        #expect(policy.classify(lastCleanBackground: Self.start, returnedAt: Self.start.addingTimeInterval(31), hasHistory: true) == .hard)
        #expect(policy.classify(lastCleanBackground: nil, returnedAt: Self.start, hasHistory: true) == .hard)
        #expect(policy.classify(lastCleanBackground: nil, returnedAt: Self.start, hasHistory: false) == .freshInstall)
        #expect(policy.restoresSilently(after: .soft, confidence: 0.1))
        #expect(!policy.restoresSilently(after: .hard, confidence: 0.5))
        #expect(policy.restoresSilently(after: .hard, confidence: 0.9))
    }

    @Test("suggestions are ranked, without duplicates, and read well")
    func suggestions() {
        var builder = SuggestionBuilder()
        builder.timeZone = TimeZone(identifier: "UTC")!
        let snapshot = PositionSnapshot(
            postId: "gone", postCreatedAt: Self.start.addingTimeInterval(-1250), savedAt: Self.start.addingTimeInterval(-7200))
        let restoration = Restoration(
            postId: "p10", index: 10, contentOffset: 1000, viewportY: 0, method: .temporalProximity,
            strategy: "TemporalProximity", confidence: 0.7, explanation: "close in time")
        let list = builder.suggestions(restoration: restoration, snapshot: snapshot, history: [snapshot], index: Self.index, now: Self.start)
        #expect(list.map(\.title) == ["Continue where you left off · 2 h ago", "Jump to newest"])
        #expect(list[0].description == "@a10 at 21:53: “post 10” — close in time")
    }

    @Test("the save clock carries across a relaunch: the first scroll after it waits out the interval")
    func clockAcrossRelaunch() {
        var tracker = PositionTracker(settings: .init(autoSaveInterval: 5, settleDelay: 100))
        let at = { (second: Double) in Self.start.addingTimeInterval(second) }
        #expect(tracker.observeScroll(offset: 0, viewportHeight: 500, in: Self.index, at: at(0)).map(\.postId) == ["p0"])
        tracker.observe(.terminate, at: at(1))
        tracker.observe(.launch, at: at(2))
        #expect(tracker.observeScroll(offset: 300, viewportHeight: 500, in: Self.index, at: at(3)).isEmpty)
        #expect(tracker.observeScroll(offset: 600, viewportHeight: 500, in: Self.index, at: at(5)).map(\.postId) == ["p6"])
    }

    @Test("when no post is visible enough, the anchor is the post at the offset")
    func noPostVisibleEnough() {
        let tall = TimelineIndex(Timeline(posts: (0..<5).map { Post(id: "t\($0)", createdAt: Self.start, height: 400) }, viewportHeight: 100))
        let tracker = PositionTracker(settings: .init(anchorVisibilityThreshold: 0.5))
        // At 250 the viewport shows 250–350 of t0 (0–400): 25 % of it, under the threshold, and
        // nothing else: the post at the offset stands.
        #expect(tracker.anchorIndex(offset: 250, viewportHeight: 100, in: tall) == 0)
        #expect(tracker.capture(offset: 250, viewportHeight: 100, in: tall, at: Self.start)?.viewportY == -250)
        #expect(tracker.anchorIndex(offset: 1000, viewportHeight: 100, in: tall) == 2)
    }

    @Test("restoring silently, for each way the app was closed")
    func silentRestoreByClose() {
        let suggest = ResumePolicy(hardCloseThreshold: 30, afterHardClose: .suggest, silentRestoreConfidence: 0.8)
        #expect(suggest.restoresSilently(after: .soft, confidence: 0))
        #expect(!suggest.restoresSilently(after: .freshInstall, confidence: 1))
        #expect(suggest.restoresSilently(after: .hard, confidence: 0.8))
        #expect(!suggest.restoresSilently(after: .hard, confidence: 0.79))
        #expect(ResumePolicy(afterHardClose: .restore).restoresSilently(after: .hard, confidence: 0))
        #expect(!ResumePolicy(afterHardClose: .topOfTimeline).restoresSilently(after: .hard, confidence: 1))
    }

    @Test("relative times read as people say them")
    func relativeTimes() {
        let cases: [(Double, String)] = [
            (0, "just now"), (59, "just now"), (60, "1 min ago"), (3599, "59 min ago"), (3600, "1 h ago"),
            (86_399, "23 h ago"), (86_400, "1 day ago"), (2 * 86_400, "2 days ago"), (45 * 86_400, "45 days ago"),
        ]
        for (seconds, text) in cases { #expect(SuggestionBuilder.relative(seconds) == text, "\(seconds) s") }
    }

    @Test("every suggestion title: continue, around a time, an earlier position, newest; one per post")
    func suggestionTitles() {
        var builder = SuggestionBuilder()
        builder.timeZone = TimeZone(identifier: "UTC")!
        let snapshot = PositionSnapshot(
            postId: "gone", postCreatedAt: Self.start.addingTimeInterval(-600), savedAt: Self.start.addingTimeInterval(-300))
        let earlier = PositionSnapshot(postId: "p20", savedAt: Self.start.addingTimeInterval(-5400))
        let restoration = Restoration(
            postId: "p7", index: 7, contentOffset: 700, viewportY: 0, method: .neighborAnchor,
            strategy: "NeighborAnchor", confidence: 0.7, explanation: "a neighbour")
        let list = builder.suggestions(
            restoration: restoration, snapshot: snapshot, history: [snapshot, earlier], index: Self.index, now: Self.start)
        #expect(
            list.map(\.title) == [
                "Continue where you left off · 5 min ago", "Posts from around 22:03", "Earlier position · 1 h ago", "Jump to newest",
            ])
        #expect(list.map(\.postId) == ["p7", "p5", "p20", "p0"])
        // p5 was created at −600 s, exactly the saved post's time: 0.6 × (1 − 0 / 3600).
        #expect(list.map(\.confidence) == [0.7, 0.6, 0.4, 0.1])
        // When the restoration is the newest post, it is offered once.
        let atTop = Restoration(
            postId: "p0", index: 0, contentOffset: 0, viewportY: 0, method: .fallback, strategy: "Fallback",
            confidence: 0.2, explanation: "top")
        #expect(
            builder.suggestions(restoration: atTop, snapshot: nil, history: [], index: Self.index, now: Self.start).map(\.title)
                == ["Continue where you left off"])
    }
}

@Suite("Posts read as they pass through the viewport", .timeLimit(.minutes(10)))
struct ReadPostsTrackingTests {
    static let posts = (0..<40).map { Post(id: "p\($0)", createdAt: Date(timeIntervalSince1970: 1_700_000_000 - Double(60 * $0)), height: 100) }

    @Test("a fling between two scrolls reads every post between them; after the timeline changed, only those shown")
    func passed() {
        var tracker = PositionTracker()
        let index = TimelineIndex(Timeline(posts: Self.posts, viewportHeight: 300))
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        _ = tracker.observeScroll(offset: 0, viewportHeight: 300, in: index, at: start)
        #expect(tracker.readPosts.ids == ["p0", "p1", "p2"])
        // One observation 2,000 points down: the view passed p3 … p19 on the way.
        _ = tracker.observeScroll(offset: 2000, viewportHeight: 300, in: index, at: start.addingTimeInterval(1))
        #expect(tracker.readPosts.count == 23)
        #expect(tracker.takeUnsavedReads().map(\.id) == (0..<23).map { "p\($0)" })
        #expect(tracker.takeUnsavedReads().isEmpty)
        // New posts on top and the place kept: they were never shown, so they are not read.
        let fresh = (0..<5).map { Post(id: "n\($0)", createdAt: Date(timeIntervalSince1970: 1_700_001_000 + Double($0)), height: 100) }
        let grown = TimelineIndex(Timeline(posts: fresh + Self.posts, viewportHeight: 300))
        _ = tracker.observeScroll(offset: 2500, viewportHeight: 300, in: grown, at: start.addingTimeInterval(2))
        #expect(tracker.readPosts.count == 23)
        #expect(UnreadCount.above(25, in: grown, read: tracker.readPosts) == 5)
    }

    @Test("a reader who flicks down and nudges back up one post at a time reads down: scrolls count the posts they pass")
    func flickAndNudge() {
        var tracker = PositionTracker(settings: .init(autoSaveInterval: 5, settleDelay: 1))
        var second = 0.0
        var post = 0
        let scroll = { (to: Int) in
            post = to
            second += 2
            _ = tracker.observeScroll(
                offset: Double(to) * 100, viewportHeight: 500, in: PositionTrackerTests.index,
                at: PositionTrackerTests.start.addingTimeInterval(second))
        }
        scroll(0)
        // Four times: down four posts at once, then back up one, and one more.
        for _ in 0..<4 {
            scroll(post + 4)
            scroll(post - 1)
            scroll(post - 1)
        }
        #expect(post == 8)
        // Eight scrolls went up and four down; the reader travelled 8 posts down.
        #expect(tracker.scrollMoves.down == 16)
        #expect(tracker.scrollMoves.up == 8)
        #expect(tracker.learnedDirection == .older)
        // A jump down 17 posts and one back up 25 to the top are one move each.
        scroll(25)
        scroll(0)
        #expect(tracker.scrollMoves.down == 17)
        #expect(tracker.scrollMoves.up == 9)
        #expect(tracker.learnedDirection == .older)
    }

    @Test("a visit counts the posts read: a reader who opened at their old place, flicked up to the new posts and read back down read them")
    func visitCountsPostsRead() throws {
        var tracker = PositionTracker(settings: .init(autoSaveInterval: 5, settleDelay: 1))
        let at = { (second: Double) in PositionTrackerTests.start.addingTimeInterval(second) }
        tracker.observe(.foreground, at: at(0))
        // Opened at p8, a flick up to the top, then post by post down to p6, 3 s on each.
        _ = tracker.observeScroll(offset: 800, viewportHeight: 500, in: PositionTrackerTests.index, at: at(1))
        _ = tracker.observeScroll(offset: 0, viewportHeight: 500, in: PositionTrackerTests.index, at: at(2))
        for post in 1...6 {
            _ = tracker.observeScroll(offset: Double(post) * 100, viewportHeight: 500, in: PositionTrackerTests.index, at: at(2 + 3 * Double(post)))
        }
        let snapshot = try #require(tracker.liveAnchor)
        #expect(snapshot.postId == "p6")
        // Two posts from where it opened, but p8 and p0 to p6 rested on: seven read beyond the first.
        #expect(tracker.visit(of: snapshot, at: at(21), in: PositionTrackerTests.index) == .init(seconds: 21, posts: 7))
        // A fling's scrolls, 80 ms apart, pass posts no one read.
        tracker.observe(.background, at: at(30), in: PositionTrackerTests.index)
        tracker.observe(.foreground, at: at(100))
        _ = tracker.observeScroll(offset: 600, viewportHeight: 500, in: PositionTrackerTests.index, at: at(101))
        for step in 1...12 {
            _ = tracker.observeScroll(
                offset: 600 + Double(step) * 100, viewportHeight: 500, in: PositionTrackerTests.index, at: at(103 + 0.08 * Double(step)))
        }
        _ = tracker.observeScroll(offset: 1700, viewportHeight: 500, in: PositionTrackerTests.index, at: at(104))
        let flung = try #require(tracker.liveAnchor)
        #expect(flung.postId == "p17")
        // Eleven posts away from p6: the distance counts, not the posts flung past.
        #expect(tracker.visit(of: flung, at: at(104), in: PositionTrackerTests.index) == .init(seconds: 4, posts: 11))
        // Back to p6 by a flick: no distance, and two posts rested on (p6 and p17), one beyond the first.
        _ = tracker.observeScroll(offset: 600, viewportHeight: 500, in: PositionTrackerTests.index, at: at(110))
        #expect(tracker.visit(of: try #require(tracker.liveAnchor), at: at(111), in: PositionTrackerTests.index) == .init(seconds: 11, posts: 1))
    }
}
