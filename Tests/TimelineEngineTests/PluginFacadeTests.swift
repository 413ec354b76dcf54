import Foundation
import Testing
import TimelineEngineKit
import TimelineEngineStrategyPlugins
import TimelineEngineTestSupport

/// A plugin's strategy through the façade: built with the registry the app passes, at
/// creation and at every reload.
@Suite("Plugins through the façade", .timeLimit(.minutes(30)))
struct PluginFacadeTests {
    @Test("a plugin's stage restores through the façade, and a reload that names it again keeps it")
    func pluginStage() async throws {
        let folder = try await ExampleBuilds.build("SameAuthorPlugin")
        let registry = try PluginLoader.load(
            [folder.appendingPathComponent(ExampleBuilds.sharedLibrary("SameAuthorPlugin")).path],
            into: BuiltInStrategies.registry)
        let configuration = ConfigurationLoader(schema: registry.configurationSchema)
            .read(
                data: Data(
                    #"{"Restoration": {"Pipeline": [{"Strategy": "ExactMatch"}, {"Strategy": "SameAuthor", "Window": 600}, {"Strategy": "Fallback"}]}}"#
                        .utf8))
        #expect(configuration.errors.isEmpty)
        let engine = try await TimelineEngine(configuration: configuration.configuration, registry: registry)
        #expect(engine.pipelineSummary == "ExactMatch > SameAuthor(Window: 600) > Fallback(Mode: NearestContent) | ViewportAnchor")
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let posts = (0..<30).map {
            Post(id: "p\($0)", createdAt: base.addingTimeInterval(Double(-60 * $0)), author: "a\($0 % 3)", text: "post \($0)")
        }
        let index = TimelineIndex(Timeline(posts: posts, viewportHeight: 600))
        engine.observeScroll(offset: 10 * 100, viewportHeight: 600, in: index)
        engine.observe(.background, in: index)
        await engine.flush()
        engine.observe(.foreground)
        // The saved post is deleted: the plugin finds the same author's nearest post.
        let saved = try #require(engine.history.first?.postId)
        let gone = TimelineIndex(Timeline(posts: posts.filter { $0.id != saved }, viewportHeight: 600))
        let result = await engine.restore(in: gone)
        #expect(result.restoration?.strategy == "SameAuthor")
        #expect(result.trace.map(\.stage).prefix(2) == ["ExactMatch", "SameAuthor"])
        try await engine.reload(configuration: configuration.configuration)
        // The silent restore put the reader on the stand-in; back on the saved post, it is deleted again.
        engine.observeScroll(offset: 10 * 100, viewportHeight: 600, in: index)
        engine.observe(.background, in: index)
        await engine.flush()
        engine.observe(.foreground)
        await #expect(engine.restore(in: gone).restoration?.strategy == "SameAuthor")
    }
}
