import Foundation
import Logging
import Testing
import TimelineEngineKit
import TimelineEngineSupport
import TimelineEngineTestSupport

/// swift-log's convention for a library: it logs through the `Logger` the app gives it. The store
/// and the engine built on it log through `EngineLoggers(appLogger)`, each record tagged with its
/// category, and the app's own metadata kept.
@Suite("The app's logger", .timeLimit(.minutes(10)))
struct AppLoggerTests {
    /// The app's log handler: a class, as many are, keeping every record it is given.
    final class Recording: LogHandler, @unchecked Sendable {
        // @unchecked: `lines` is read and written under `lock` only.
        private let lock = NSLock()
        private var lines: [String] = []
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        var logged: [String] { lock.withLock { lines } }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let fields = ["category", "app", "post"].compactMap { key in all[key].map { "\(key)=\($0)" } }.joined(separator: " ")
            lock.withLock { lines.append("\(event.level) \(event.message) \(fields)") }
        }
    }

    @Test("a store opened with the app's logger, and the engine on it, log through it with each record's category")
    func throughTheAppsLogger() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recording = Recording()
        var logger = Logger(label: "app") { _ in recording }
        logger[metadataKey: "app"] = "reader"
        let store = try await TimelineStore(path: directory.appendingPathComponent("engine.sqlite").path, loggers: EngineLoggers(logger))
        let index = TimelineIndex(Timeline(posts: TimelineEngineTests.posts, viewportHeight: 600))
        let engine = try await TimelineEngine(store: store, scope: StoreScope(account: "me", timeline: "home"))
        engine.observeScroll(offset: 1230, viewportHeight: 600, in: index)
        engine.observe(.background, in: index)
        await engine.flush()
        let result = await engine.restore(in: index)
        #expect(result.restoration?.postId == "p12")
        let logged = recording.logged
        #expect(logged.contains("debug store created category=cache app=reader"), "\(logged)")
        #expect(logged.contains("debug saved category=position app=reader post=p12"), "\(logged)")
        #expect(logged.contains("debug restored category=position app=reader post=p12"), "\(logged)")
        #expect(logged.contains { $0.hasPrefix("trace stage verdict category=position app=reader") }, "\(logged)")
    }
}
