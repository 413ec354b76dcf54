import Foundation
import PropertyBased
import Testing
import TimelineEngineAuthorRun
import TimelineEngineCore
import TimelineEngineRestoration
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineStrategyPlugins
import TimelineEngineTestSupport

/// The plugin loader and the C ABI, through the library: the example plugin, built from
/// `Examples/SameAuthorPlugin`, runs AuthorRun's algorithm behind the ABI, so the two must agree
/// on every input.
@Suite("Plugin loader", .serialized, .timeLimit(.minutes(30)))
struct PluginLoaderTests {
    static func registry() async throws -> StrategyRegistry {
        let folder = try await ExampleBuilds.build("SameAuthorPlugin")
        return try PluginLoader.load(
            [folder.appendingPathComponent(ExampleBuilds.sharedLibrary("SameAuthorPlugin")).path],
            into: BuiltInStrategies.registry)
    }

    /// A seeded draw, so that a failing input can be replayed.
    struct Draw {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(1, bound)))
        }
    }

    @Test("the plugin registers beside the built-ins, and its schema is composed into the configuration schema")
    func registered() async throws {
        let registry = try await Self.registry()
        #expect(registry.names == BuiltInStrategies.registry.names + ["SameAuthor"])
        let stage = registry.configurationSchema.document["$defs"]?["restoration"]?["properties"]?["Strategy"]?["enum"]?.arrayValue
        #expect(stage?.last?.stringValue == "SameAuthor")
    }

    @Test("the plugin and the built-in AuthorRun propose the same post, confidence and placement on any timeline")
    func sameAsBuiltIn() async throws {
        let registry = try await Self.registry()
        let plugin = try PipelineBuilder(registry: registry).build(spec: "SameAuthor(Window: 600)")
        let builtIn = try PipelineBuilder(registry: registry).build(spec: "AuthorRun(Window: 600)")
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        await pinnedPropertyCheck(count: 300, input: Gen.int(in: 0...1_000_000)) { seed in
            var draw = Draw(state: UInt64(seed))
            // Up to 60 posts by five authors, in an order that is not time order, some at equal times.
            let posts = (0..<draw.next(61)).map { number in
                Post(
                    id: "p\(number)", createdAt: base.addingTimeInterval(Double(-draw.next(40) * 30)), author: "a\(draw.next(5))",
                    text: draw.next(2) == 0 ? nil : "text \(number)", height: Double(50 + draw.next(200)))
            }
            let saved = PositionSnapshot(
                postId: draw.next(4) == 0 && !posts.isEmpty ? posts[draw.next(posts.count)].id : "gone",
                postCreatedAt: base.addingTimeInterval(Double(-draw.next(1300))),
                author: draw.next(6) == 0 ? nil : "a\(draw.next(5))")
            let request = RestorationRequest(snapshot: saved, index: TimelineIndex(Timeline(posts: posts)))
            let fromPlugin = plugin.restore(request).restoration
            let fromBuiltIn = builtIn.restore(request).restoration
            #expect(fromPlugin?.postId == fromBuiltIn?.postId, "seed \(seed)")
            #expect(fromPlugin?.confidence == fromBuiltIn?.confidence, "seed \(seed)")
            #expect(fromPlugin?.contentOffset == fromBuiltIn?.contentOffset, "seed \(seed)")
            #expect(fromPlugin?.explanation == fromBuiltIn?.explanation, "seed \(seed)")
        }
    }

    @Test("the plugin's parameters are validated and given their defaults before make; Weight is the registry's")
    func parameters() async throws {
        let registry = try await Self.registry()
        #expect(throws: PipelineError("SameAuthor: MaxVisited: 0 is less than the minimum 1 (allowed: ≥ 1 and ≤ 1000000)")) {
            try PipelineBuilder(registry: registry).build(spec: "SameAuthor(MaxVisited: 0)")
        }
        let node = StrategyNode(name: "SameAuthor", parameters: ["Weight": .init(value: .integer(2))])
        guard let stage = try registry.build(node, kind: .restoration).as((any RestorationStage).self) else {
            Issue.record("not a stage")
            return
        }
        #expect(stage.weight == 2)
        #expect(stage.name == "SameAuthor")
    }

    @Test("a view of the timeline is built once per index and shared by every restore on it")
    func viewIsShared() async throws {
        let registry = try await Self.registry()
        let pipeline = try PipelineBuilder(registry: registry).build(spec: "SameAuthor")
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let index = TimelineIndex(
            Timeline(posts: (0..<1000).map { Post(id: "p\($0)", createdAt: base.addingTimeInterval(Double(-$0)), author: "a\($0 % 7)") }))
        let snapshot = PositionSnapshot(postId: "gone", postCreatedAt: base.addingTimeInterval(-500.5), author: "a3")
        let first = pipeline.restore(RestorationRequest(snapshot: snapshot, index: index)).restoration
        for _ in 0..<100 { #expect(pipeline.restore(RestorationRequest(snapshot: snapshot, index: index)).restoration == first) }
        #expect(first?.postId == "p500" || first?.postId == "p501")
    }
}
