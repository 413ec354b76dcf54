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
        var tracker = PositionTracker(settings: .init(autoSaveInterval: 5))
        #expect(tracker.observeScroll(offset: 0, viewportHeight: 500, in: Self.index, at: Self.start) != nil)
        #expect(tracker.observeScroll(offset: 300, viewportHeight: 500, in: Self.index, at: Self.start.addingTimeInterval(2)) == nil)
        #expect(tracker.observeScroll(offset: 600, viewportHeight: 500, in: Self.index, at: Self.start.addingTimeInterval(5)) != nil)
        #expect(tracker.observeScroll(offset: 900, viewportHeight: 500, in: Self.index, at: Self.start.addingTimeInterval(6)) == nil)
        #expect(tracker.observe(.background, at: Self.start.addingTimeInterval(7), in: Self.index)?.postId == "p9")
        #expect(tracker.observe(.terminate, at: Self.start.addingTimeInterval(8), in: Self.index) == nil)
        #expect(tracker.history.map(\.postId) == ["p9", "p6", "p0"])
        tracker.observe(.launch, at: Self.start.addingTimeInterval(100))
        #expect(tracker.liveAnchor == nil)
        #expect(tracker.observe(.background, at: Self.start.addingTimeInterval(101), in: Self.index) == nil)
        #expect(tracker.restoreInput(at: Self.start.addingTimeInterval(102))?.postId == "p9")
    }

    @Test("the live anchor is used until it is older than AnchorMaxAge")
    func anchorAge() {
        var tracker = PositionTracker(settings: .init(autoSaveInterval: 1000, anchorMaxAge: 30))
        tracker.observeScroll(offset: 0, viewportHeight: 500, in: Self.index, at: Self.start)
        tracker.observeScroll(offset: 1200, viewportHeight: 500, in: Self.index, at: Self.start.addingTimeInterval(1))
        #expect(tracker.restoreInput(at: Self.start.addingTimeInterval(31))?.postId == "p12")
        #expect(tracker.restoreInput(at: Self.start.addingTimeInterval(32))?.postId == "p0")
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
