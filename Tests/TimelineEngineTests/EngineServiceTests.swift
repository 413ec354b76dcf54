#if ServiceLifecycle
import Foundation
import Logging
import ServiceLifecycle
import Testing
import TimelineEngineKit
import TimelineEngineTestSupport

/// The engine as a swift-service-lifecycle `Service` (the ServiceLifecycle trait).
@Suite("The engine in a ServiceGroup", .timeLimit(.minutes(10)))
struct EngineServiceTests {
    @Test("a ServiceGroup runs the engine, and the group's graceful shutdown ends run() once every save is written")
    func gracefulShutdown() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await EngineLifecycleTests.store(in: directory)
        let clock = TestClock()
        let engine = try await TimelineEngine(store: store, scope: EngineLifecycleTests.scope, clock: { clock.now })
        let group = ServiceGroup(services: [engine], logger: Logger(label: "engine-service-tests"))
        let running = Task { try await group.run() }
        for step in 0..<10 {
            engine.observeScroll(offset: Double(step * 100), viewportHeight: 600, in: EngineLifecycleTests.index)
            engine.observe(.background, in: EngineLifecycleTests.index)
            clock.advance(600)
        }
        await group.triggerGracefulShutdown()
        try await Deadline.value(within: 30, "the group to end") { try await running.value }
        let stored = try await store.positions.history(scope: EngineLifecycleTests.scope).map(\.postId)
        #expect(stored == engine.history.map(\.postId))
        #expect(stored.first == "p9")
    }
}
#endif
