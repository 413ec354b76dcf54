import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineRestoration
import TimelineEngineRestorationModel
import TimelineEngineTestSupport

/// The default pipeline on a real home timeline (`Tests/Fixtures/posts/home-timeline-2022-12-07.jsonl`).
@Suite("Restoring on a real home timeline", .timeLimit(.minutes(10)))
struct RealTimelineTests {
    static let timeline = try! TimelineFormat.read(Data(contentsOf: Fixtures.url("posts/home-timeline-2022-12-07.jsonl")))

    static func snapshot(at index: Int) -> PositionSnapshot {
        let posts = timeline.posts
        return PositionSnapshot(
            postId: posts[index].id, postCreatedAt: posts[index].createdAt, viewportY: -35, contentOffset: 1000,
            viewportHeight: 800, index: index, timelineCount: posts.count,
            neighbors: .init(
                above: (max(0, index - 5)..<index).reversed().map { posts[$0].id },
                below: (index + 1..<min(posts.count, index + 6)).map { posts[$0].id }),
            text: posts[index].text)
    }

    static func restore(_ posts: [Post], _ snapshot: PositionSnapshot) throws -> Restoration? {
        try PipelineBuilder().build().restore(RestorationRequest(snapshot: snapshot, index: TimelineIndex(Timeline(posts: posts)))).restoration
    }

    @Test("a refresh inserts posts above: the same post, the same pixel")
    func refresh() throws {
        let posts = Self.timeline.posts
        let snapshot = Self.snapshot(at: 40)
        let result = try Self.restore(Array(posts[20...]), snapshot)
        #expect(result?.postId == posts[40].id)
        #expect(result?.method == .exactMatch)
        #expect(result?.viewportY == -35)
    }

    @Test("the post is deleted: the neighbour below stands in")
    func deleted() throws {
        var posts = Self.timeline.posts
        let snapshot = Self.snapshot(at: 40)
        posts.remove(at: 40)
        let result = try Self.restore(posts, snapshot)
        #expect(result?.postId == Self.timeline.posts[41].id)
        #expect(result?.method == .neighborAnchor)
    }

    @Test("the post and its neighbours are gone: the closest post in time")
    func neighboursGone() throws {
        let snapshot = Self.snapshot(at: 40)
        let posts = Array(Self.timeline.posts[0..<35] + Self.timeline.posts[46...])
        let result = try Self.restore(posts, snapshot)
        #expect(result?.method == .temporalProximity)
        let gap = abs(
            (result.flatMap { r in posts.first { $0.id == r.postId } }?.createdAt ?? .distantPast)
                .timeIntervalSince(Self.timeline.posts[40].createdAt))
        let best = posts.map { abs($0.createdAt.timeIntervalSince(Self.timeline.posts[40].createdAt)) }.min()!
        #expect(gap == best)
    }
}
