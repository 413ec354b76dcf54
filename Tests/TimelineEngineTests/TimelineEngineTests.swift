import Foundation
import Testing
import TimelineEngineKit

/// A clock the tests move by hand.
// @unchecked: `current` is read and written under `lock` only.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_700_000_000)

    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    func advance(_ seconds: Double) {
        lock.lock()
        current = current.addingTimeInterval(seconds)
        lock.unlock()
    }
}

@Suite("TimelineEngine façade", .timeLimit(.minutes(10)))
struct TimelineEngineTests {
    static let posts = (0..<50).map {
        Post(id: "p\($0)", createdAt: Date(timeIntervalSince1970: 1_700_000_000 - Double(120 * $0)), text: "post \($0)", height: 100)
    }

    @Test("a refresh above the reader: the same post at the same pixel, silently after a soft close")
    func refresh() async throws {
        let clock = TestClock()
        let engine = try await TimelineEngine(clock: { clock.now })
        let before = TimelineIndex(Timeline(posts: Self.posts, viewportHeight: 600))
        engine.observeScroll(offset: 1230, viewportHeight: 600, in: before)
        engine.observe(.background, in: before)
        await engine.flush()
        clock.advance(10)
        engine.observe(.foreground)
        let fresh = (0..<7).map { Post(id: "new\($0)", createdAt: Date(timeIntervalSince1970: 1_700_000_100 + Double($0)), height: 80) }
        let after = TimelineIndex(Timeline(posts: fresh + Self.posts, viewportHeight: 600))
        let result = await engine.restore(in: after)
        #expect(result.close == .soft)
        #expect(result.restoreSilently)
        #expect(result.restoration?.postId == "p12")
        #expect(result.restoration?.viewportY == -30)
        #expect(result.restoration?.contentOffset == 1790.0)
    }

    @Test("a background after a silent restore and no scroll saves where the restore put the reader, not the old offset")
    func backgroundAfterRestore() async throws {
        let clock = TestClock()
        let engine = try await TimelineEngine(clock: { clock.now })
        let before = TimelineIndex(Timeline(posts: Self.posts, viewportHeight: 600))
        engine.observeScroll(offset: 1230, viewportHeight: 600, in: before)
        engine.observe(.background, in: before)
        await engine.flush()
        clock.advance(10)
        engine.observe(.foreground)
        let fresh = (0..<7).map { Post(id: "new\($0)", createdAt: Date(timeIntervalSince1970: 1_700_000_100 + Double($0)), height: 80) }
        let after = TimelineIndex(Timeline(posts: fresh + Self.posts, viewportHeight: 600))
        let result = await engine.restore(in: after)
        #expect(result.restoreSilently)
        #expect(result.restoration?.postId == "p12")
        // Put down again before any scroll: the save is p12 at the restored offset. At the old
        // offset, 1230, the new timeline shows p6: a place the reader never saw.
        clock.advance(5)
        engine.observe(.background, in: after)
        await engine.flush()
        #expect(engine.history.first?.postId == "p12")
        #expect(engine.history.first?.contentOffset == 1790)
        // A suggestion the app applied itself, told with placed(at:in:): the same.
        engine.observe(.foreground)
        engine.placed(at: 4000 + 560, in: after)
        engine.observe(.background, in: after)
        await engine.flush()
        #expect(engine.history.first?.postId == "p40")
    }

    @Test("after a hard close the result carries suggestions unless confident enough")
    func hardClose() async throws {
        let clock = TestClock()
        let engine = try await TimelineEngine(clock: { clock.now })
        let index = TimelineIndex(Timeline(posts: Self.posts, viewportHeight: 600))
        engine.observeScroll(offset: 1000, viewportHeight: 600, in: index)
        engine.observe(.terminate)
        clock.advance(3600)
        engine.observe(.launch)
        let exact = await engine.restore(in: index)
        #expect(exact.close == .hard)
        #expect(exact.restoreSilently)
        // The post and all its recorded neighbours are gone: only time and text can help.
        let gone = TimelineIndex(Timeline(posts: Self.posts.filter { !(5...15).contains(Int($0.id.dropFirst())!) }, viewportHeight: 600))
        let unsure = await engine.restore(in: gone)
        #expect(!unsure.restoreSilently)
        #expect(unsure.restoration?.postId == "p16")
        #expect(unsure.restoration?.method == .temporalProximity)
        #expect(unsure.suggestions.first?.postId == "p16")
        #expect(unsure.suggestions.last?.title == "Jump to newest")
    }

    @Test("a fresh install starts at the top; reload swaps the pipeline")
    func freshInstallAndReload() async throws {
        let engine = try await TimelineEngine()
        let index = TimelineIndex(Timeline(posts: Self.posts, viewportHeight: 600))
        let result = await engine.restore(in: index)
        #expect(result.close == .freshInstall)
        #expect(result.restoration?.index == 0)
        var configuration = TimelineConfiguration.defaults
        configuration.positionPersistence.smartRestoration = false
        try await engine.reload(configuration: configuration)
        #expect(engine.pipelineSummary == "ExactMatch > Fallback(Mode: NearestContent) | ViewportAnchor")
    }

    @Test("safe to use from many tasks at once: every saved position is one a task observed, every restore answers, every reload succeeds")
    func concurrency() async throws {
        let engine = try await TimelineEngine()
        let index = TimelineIndex(Timeline(posts: Self.posts, viewportHeight: 600))
        let offsets = (0..<8).flatMap { task in (0..<200).map { step in Double((task * 200 + step) % 4000) } }
        let restored = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var answered = 0
                    for step in 0..<200 {
                        engine.observeScroll(offset: offsets[task * 200 + step], viewportHeight: 600, in: index)
                        if await engine.restore(in: index).restoration != nil { answered += 1 }
                        if step % 50 == 0 { try await engine.reload(configuration: .defaults) }
                    }
                    return answered
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(restored == 8 * 200)
        let history = engine.history
        #expect(!history.isEmpty)
        #expect(history.count <= TimelineConfiguration.defaults.positionPersistence.maxHistorySize)
        #expect(Set(history.map(\.postId)).count == history.count)
        // Each saved snapshot is the capture of an offset a task scrolled to, against this timeline.
        let tracker = PositionTracker()
        for snapshot in history {
            #expect(offsets.contains(snapshot.contentOffset), "\(snapshot.contentOffset) was never observed")
            let anchor = tracker.anchorIndex(offset: snapshot.contentOffset, viewportHeight: 600, in: index)
            #expect(anchor.map { index.posts[$0].id } == snapshot.postId)
            #expect(anchor.map { index.y(of: $0) - snapshot.contentOffset } == snapshot.viewportY)
        }
    }
}
