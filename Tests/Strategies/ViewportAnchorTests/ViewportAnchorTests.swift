import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineRestorationModel
import TimelineEngineViewportAnchor

@Suite("ViewportAnchor", .timeLimit(.minutes(10)))
struct ViewportAnchorTests {
    static let base = Date(timeIntervalSince1970: 1_700_000_000)
    static func posts(_ ids: [String], height: Double = 100) -> [Post] {
        ids.map { Post(id: $0, createdAt: base, height: height) }
    }

    static func place(
        _ placement: Placement, index: Int, posts: [Post], snapshot: PositionSnapshot?, atTop: ViewportAnchorStrategy.AtTop = .keepPosition,
        viewport: Double = 300
    ) -> Restoration {
        let request = RestorationRequest(snapshot: snapshot, index: TimelineIndex(Timeline(posts: posts, viewportHeight: viewport)))
        let candidate = Candidate(index: index, confidence: 1, method: .exactMatch, placement: placement, strategy: "Test", explanation: "test")
        return ViewportAnchorStrategy(atTop: atTop).place(candidate, request: request)
    }

    @Test("a surviving post does not drift when posts are inserted or removed above it")
    func noDrift() {
        let snapshot = PositionSnapshot(postId: "c", viewportY: -40, contentOffset: 240, index: 2, timelineCount: 6)
        for inserted in [0, 1, 7, 50] {
            let extra = (0..<inserted).map { Post(id: "new\($0)", createdAt: Self.base, height: 37) }
            let posts = extra + Self.posts(["a", "b", "c", "d", "e", "f"])
            let result = Self.place(.standIn, index: inserted + 2, posts: posts, snapshot: snapshot)
            #expect(result.viewportY == -40)
            #expect(result.contentOffset == Double(inserted) * 37 + 240)
        }
        let removed = Self.place(.standIn, index: 1, posts: Self.posts(["b", "c", "d", "e", "f"]), snapshot: snapshot)
        #expect(removed.viewportY == -40)
        #expect(removed.contentOffset == 140)
    }

    @Test("offsets are clamped to the content")
    func clamping() {
        let snapshot = PositionSnapshot(postId: "a", viewportY: 50, contentOffset: 0)
        let top = Self.place(.standIn, index: 0, posts: Self.posts(["a", "b", "c", "d"]), snapshot: snapshot)
        #expect(top.contentOffset == 0)
        #expect(top.viewportY == 0)
        let bottom = Self.place(.postAtTop, index: 3, posts: Self.posts(["a", "b", "c", "d"]), snapshot: snapshot)
        #expect(bottom.contentOffset == 100)
        #expect(bottom.viewportY == 200)
    }

    @Test("LastKnownPosition anchors the post at the restored offset; TopOfTimeline is offset 0")
    func offsets() {
        let posts = Self.posts(["a", "b", "c", "d", "e"])
        let last = Self.place(.contentOffset(250), index: 0, posts: posts, snapshot: nil)
        #expect(last.contentOffset == 200)
        #expect(last.postId == "c")
        #expect(last.viewportY == 0)
        let top = Self.place(.topOfTimeline, index: 3, posts: posts, snapshot: nil)
        #expect(top.contentOffset == 0)
        #expect(top.postId == "a")
    }

    @Test("RevealNew keeps a reader at the top at the top")
    func revealNew() {
        let posts = Self.posts(["new", "a", "b", "c", "d"])
        let snapshot = PositionSnapshot(postId: "a", viewportY: 0, contentOffset: 0)
        #expect(Self.place(.standIn, index: 1, posts: posts, snapshot: snapshot).contentOffset == 100)
        #expect(Self.place(.standIn, index: 1, posts: posts, snapshot: snapshot, atTop: .revealNew).contentOffset == 0)
    }
}
