import Foundation
import PositionTracking
import Testing
import TimelineCore

@Suite("Position tracker, resume policy and suggestions")
struct PositionTrackerTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)
    static let index = TimelineIndex(Timeline(posts: (0..<30).map {
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
            if !tracker.observeScroll(offset: Double(step * 30), viewportHeight: 500, in: Self.index, at: Self.start.addingTimeInterval(second)).isEmpty {
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
        let snapshot = PositionSnapshot(postId: "gone", postCreatedAt: Self.start.addingTimeInterval(-1250), savedAt: Self.start.addingTimeInterval(-7200))
        let restoration = Restoration(postId: "p10", index: 10, contentOffset: 1000, viewportY: 0, method: .temporalProximity,
                                      strategy: "TemporalProximity", confidence: 0.7, explanation: "close in time")
        let list = builder.suggestions(restoration: restoration, snapshot: snapshot, history: [snapshot], index: Self.index, now: Self.start)
        #expect(list.map(\.title) == ["Continue where you left off · 2 h ago", "Jump to newest"])
        #expect(list[0].description == "@a10 at 21:53: “post 10” — close in time")
    }
}
