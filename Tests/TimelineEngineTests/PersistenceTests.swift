import Foundation
import Testing
import TestSupport
import TimelineEngine

@Suite("TimelineEngine with a store")
struct PersistenceTests {
    @Test("after a restart, restoration starts from the persisted history")
    func restart() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("engine.sqlite").path
        let scope = StoreScope(account: "me", timeline: "home")
        let clock = TestClock()
        let index = TimelineIndex(Timeline(posts: TimelineEngineTests.posts, viewportHeight: 600))
        do {
            let engine = try TimelineEngine(store: try TimelineStore(path: path), scope: scope, clock: { clock.now })
            engine.observeScroll(offset: 1230, viewportHeight: 600, in: index)
            clock.advance(2)
            engine.observeScroll(offset: 2010, viewportHeight: 600, in: index)  // not autosaved: 2 s after the last save
            engine.observe(.background, in: index)                              // saves p20
            #expect(engine.lastStoreError == nil)
        }
        // The process ends; a new one opens the same store.
        clock.advance(3600)
        let store = try TimelineStore(path: path)
        #expect(try store.history(scope: scope).map(\.postId) == ["p20", "p12"])
        let engine = try TimelineEngine(store: store, scope: scope, clock: { clock.now })
        engine.observe(.launch)
        #expect(engine.history.map(\.postId) == ["p20", "p12"])
        let result = engine.restore(in: index)
        #expect(result.restoration?.postId == "p20")
        #expect(result.restoration?.viewportY == -10)
        #expect(try store.lastRestoration(scope: scope)?.json.contains("\"postId\":\"p20\"") == true)
        // Another account's history is its own.
        let other = try TimelineEngine(store: store, scope: StoreScope(account: "someone else"), clock: { clock.now })
        #expect(other.history.isEmpty)
    }
}
