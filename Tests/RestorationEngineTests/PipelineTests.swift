import Foundation
import Testing
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineJSONSchema
import TimelineEngineJSONText
import TimelineEngineRestoration
import TimelineEngineRestorationModel
import TimelineEngineTestSupport
import TimelineEngineValueTree

@Suite("Pipelines from the configuration and from specs", .timeLimit(.minutes(10)))
struct PipelineTests {
    static let base = Date(timeIntervalSince1970: 1_700_000_000)
    static let posts = (0..<20).map {
        Post(id: "p\($0)", createdAt: base.addingTimeInterval(Double(-600 * $0)), text: "post number \($0)", height: 100)
    }

    static func configuration(_ json: String) -> TimelineConfiguration {
        let loaded = ConfigurationLoader().read(data: Data(json.utf8))
        #expect(loaded.errors.isEmpty, "\(loaded.errors)")
        return loaded.configuration
    }

    static func restore(_ configuration: TimelineConfiguration, snapshot: PositionSnapshot?, posts: [Post] = posts) throws -> Restoration? {
        let pipeline = try PipelineBuilder(configuration: configuration).build()
        return pipeline.restore(RestorationRequest(snapshot: snapshot, index: TimelineIndex(Timeline(posts: posts, viewportHeight: 500)))).restoration
    }

    @Test("the seed's keys drive the default pipeline")
    func defaultPipeline() throws {
        #expect(
            try PipelineBuilder().build().summary
                == "ExactMatch > ContentSimilarity(Threshold: 0.8) > NeighborAnchor > TemporalProximity > ContentSimilarity > Fallback(Mode: NearestContent) | ViewportAnchor"
        )
        let smartOff = Self.configuration("{\"PositionPersistence\": {\"SmartRestoration\": false}}")
        #expect(try PipelineBuilder(configuration: smartOff).build().summary == "ExactMatch > Fallback(Mode: NearestContent) | ViewportAnchor")
        let disabled = Self.configuration("{\"PositionPersistence\": {\"Enabled\": false}}")
        #expect(try PipelineBuilder(configuration: disabled).build().summary == "Fallback(Mode: TopOfTimeline) | ViewportAnchor")
    }

    @Test("editing FallbackStrategy changes the restoration, with no code change")
    func fallbackStrategyDrivesFallback() throws {
        let snapshot = PositionSnapshot(postId: "gone", viewportY: 0, contentOffset: 900, index: 10, timelineCount: 20)
        let nearest = try Self.restore(
            Self.configuration("{\"PositionPersistence\": {\"FallbackStrategy\": \"NearestContent\"}}"), snapshot: snapshot)
        let top = try Self.restore(Self.configuration("{\"PositionPersistence\": {\"FallbackStrategy\": \"TopOfTimeline\"}}"), snapshot: snapshot)
        let oldest = try Self.restore(Self.configuration("{\"PositionPersistence\": {\"FallbackStrategy\": \"OldestPost\"}}"), snapshot: snapshot)
        #expect(nearest?.postId == "p10")
        #expect(top?.postId == "p0")
        #expect(top?.contentOffset == 0)
        #expect(oldest?.postId == "p19")
        #expect(nearest?.method == .fallback)
    }

    @Test("an explicit pipeline with a composition and parameters")
    func explicitPipeline() throws {
        let configuration = Self.configuration(
            """
            {"Restoration": {"Pipeline": [
              {"Strategy": "BestConfidence", "Stages": [{"Strategy": "ExactMatch"}, {"Strategy": "ContentSimilarity", "Threshold": 0.5}]},
              {"Strategy": "Fallback", "Mode": "TopOfTimeline"},
              {"Strategy": "ViewportAnchor", "AtTop": "RevealNew"}]}}
            """)
        let pipeline = try PipelineBuilder(configuration: configuration).build()
        #expect(
            pipeline.summary
                == "BestConfidence(ExactMatch, ContentSimilarity(Threshold: 0.5)) > Fallback(Mode: TopOfTimeline) | ViewportAnchor(AtTop: RevealNew)")
        let snapshot = PositionSnapshot(postId: "gone", contentOffset: 300, text: "post number 7 again")
        let result = pipeline.restore(RestorationRequest(snapshot: snapshot, index: TimelineIndex(Timeline(posts: Self.posts))))
        #expect(result.restoration?.postId == "p7")
        #expect(result.restoration?.strategy == "ContentSimilarity")
    }

    @Test("specs: A > B is FirstMatch, compositions take specs")
    func specs() throws {
        let builder = PipelineBuilder()
        #expect(
            try builder.build(spec: "ExactMatch > TemporalProximity(Window: 1800) > Fallback(Mode: TopOfTimeline)").summary
                == "ExactMatch > TemporalProximity(Window: 1800) > Fallback(Mode: TopOfTimeline) | ViewportAnchor")
        // A Fallback without a Mode shows the one it takes from PositionPersistence.FallbackStrategy.
        #expect(
            try builder.build(spec: "BestConfidence(ExactMatch, ContentSimilarity(Threshold: 0.5)) > Fallback").summary
                == "BestConfidence(ExactMatch, ContentSimilarity(Threshold: 0.5)) > Fallback(Mode: NearestContent) | ViewportAnchor")
        #expect(
            try PipelineSpec.parse("A(B > C, X: 'y z')")
                == .stage(
                    name: "A", parameters: [("X", .string("y z"))],
                    arguments: [
                        .sequence([
                            .stage(name: "B", parameters: [], arguments: []),
                            .stage(name: "C", parameters: [], arguments: []),
                        ])
                    ]))
    }

    @Test("what the tools print reads back into the same pipeline, under any composition and minimum confidence")
    func summariesParse() throws {
        let configurations = [
            #"{}"#,
            #"{"PositionPersistence": {"FallbackStrategy": "TopOfTimeline"}, "Restoration": {"MinimumConfidence": 0.7}}"#,
            #"{"Restoration": {"Composition": "BestConfidence"}}"#,
            #"{"Restoration": {"Composition": "WeightedVote", "Pipeline": [{"Strategy": "ExactMatch", "Weight": 2}, {"Strategy": "Fallback"}]}}"#,
            #"{"PositionPersistence": {"SmartRestoration": false}}"#,
        ]
        for text in configurations {
            let configuration = ConfigurationLoader().read(data: Data(text.utf8)).configuration
            let builder = PipelineBuilder(configuration: configuration)
            let summary = try builder.build().summary
            #expect(try builder.build(spec: summary).summary == summary, "\(text)")
        }
        let configuration = ConfigurationLoader().read(data: Data(configurations[1].utf8)).configuration
        #expect(
            try PipelineBuilder(configuration: configuration).build().summary
                == "FirstMatch(ExactMatch, ContentSimilarity(Threshold: 0.8), NeighborAnchor, TemporalProximity, ContentSimilarity, Fallback(Mode: TopOfTimeline), MinimumConfidence: 0.7) | ViewportAnchor"
        )
        #expect(try PipelineBuilder().build(spec: "ExactMatch | ViewportAnchor").summary == "ExactMatch | ViewportAnchor")
    }

    /// The registered stage names, as messages list them.
    static let stageNames = BuiltInStrategies.registry.stageTypes.map(\.name)

    @Test(
        "bad specs are clear errors",
        arguments: [
            (
                "ExactMatch > TemporalProximty",
                "unknown strategy \"TemporalProximty\"; did you mean \"TemporalProximity\"? Registered: \(Self.stageNames.joined(separator: ", "))"
            ),
            ("TemporalProximity(Window: -5)", "TemporalProximity: Window: -5 is less than the minimum 0 (allowed: ≥ 0 and ≤ 315360000)"),
            (
                "ContentSimilarity(Treshold: 0.5)",
                "ContentSimilarity: Treshold: unknown key \"Treshold\"; did you mean \"Threshold\"? Valid keys: Threshold, ClockSlack, Weight"
            ),
            (
                "Fallback(Mode: Top)",
                "Fallback: Mode: \"Top\" is not one of the allowed values: \"NearestContent\", \"TopOfTimeline\", \"LastKnownPosition\", \"NewestPost\", \"OldestPost\""
            ),
            ("ExactMatch(", "invalid --strategy spec at column 12: expected a strategy name at the end"),
            ("ViewportAnchor > ExactMatch", "ViewportAnchor is a positioning strategy; it can only come last in a pipeline"),
            ("ExactMatch(Fallback)", "ExactMatch is not a composition and takes no stages"),
            (
                "ContentSimilarity(Threshold: 0.9, Threshold: 0.0)",
                "invalid --strategy spec at column 35: ContentSimilarity is given the parameter Threshold twice"
            ),
            ("ExactMatch | Fallback", "Fallback is a fallback strategy; only a positioning strategy can follow '|'"),
            ("ExactMatch | ViewportAnchor | ViewportAnchor", "invalid --strategy spec at column 29: unexpected '|'"),
            // What prints as nothing is shown: a zero-width space, a right-to-left override.
            ("Exact\u{200B}Match", "invalid --strategy spec at column 6: unexpected '\\u200B'"),
            ("ExactMatch \u{202E}> Fallback", "invalid --strategy spec at column 12: unexpected '\\u202E'"),
            (
                String(repeating: "BestConfidence(", count: 8000) + "ExactMatch" + String(repeating: ")", count: 8000),
                "invalid --strategy spec at column 961: compositions nest deeper than 64 levels"
            ),
        ])
    func badSpecs(_ spec: String, _ message: String) {
        let error = #expect(throws: PipelineError.self) { try PipelineBuilder().build(spec: spec) }
        #expect(error?.description == message)
    }

    @Test("the explain trace records every stage's verdict")
    func trace() throws {
        let pipeline = try PipelineBuilder().build()
        let snapshot = PositionSnapshot(postId: "gone", postCreatedAt: Self.base.addingTimeInterval(-3000), viewportY: 0, index: 5, timelineCount: 20)
        let outcome = pipeline.restore(RestorationRequest(snapshot: snapshot, index: TimelineIndex(Timeline(posts: Self.posts))))
        #expect(outcome.restoration?.postId == "p5")
        #expect(outcome.trace.map(\.stage) == ["ExactMatch", "ContentSimilarity", "NeighborAnchor", "TemporalProximity"])
        #expect(outcome.trace.map(\.verdict) == ["no candidate", "no candidate", "no candidate", "chosen"])
    }

    @Test("the outcome as JSON: the restoration's fields, and with explained the pipeline and every verdict")
    func outcomeJSON() throws {
        let pipeline = try PipelineBuilder().build(spec: "ExactMatch > Fallback(Mode: TopOfTimeline)")
        let index = TimelineIndex(Timeline(posts: Self.posts))
        let outcome = pipeline.restore(RestorationRequest(snapshot: PositionSnapshot(postId: "gone"), index: index))
        let plain = try #require(outcome.value(pipeline: pipeline, index: index, explained: false))
        #expect(
            plain.dictionaryValue?.keys.map(\.string) == [
                "postId", "index", "contentOffset", "viewportY", "method", "strategy", "confidence", "explanation",
            ])
        let explained = try #require(outcome.value(pipeline: pipeline, index: index, explained: true))
        #expect(explained["pipeline"]?.stringValue == "ExactMatch > Fallback(Mode: TopOfTimeline) | ViewportAnchor")
        #expect(
            try JSONWriter().write(explained["trace"]!)
                == #"[{"stage":"ExactMatch","depth":0,"postId":null,"confidence":null,"verdict":"no candidate","explanation":null},{"stage":"Fallback","depth":0,"postId":"p0","confidence":0.1,"verdict":"chosen: the last stage that answered (no candidate reached 0.50)","explanation":"TopOfTimeline: the top of the timeline"}]"#
        )
        #expect(
            pipeline.restore(RestorationRequest(snapshot: nil, index: TimelineIndex(Timeline(posts: [])))).value(
                pipeline: pipeline, index: index, explained: true) == nil)
    }

    @Test("an empty timeline has nothing to restore")
    func emptyTimeline() throws {
        let outcome = try PipelineBuilder().build().restore(RestorationRequest(snapshot: nil, index: TimelineIndex(Timeline(posts: []))))
        #expect(outcome.restoration == nil)
    }
}

@Suite("Composed configuration schema", .timeLimit(.minutes(10)))
struct ComposedSchemaTests {
    @Test("schemas/ holds the configuration schema composed with every registered strategy")
    func inStep() throws {
        let file = try String(contentsOf: Fixtures.repositoryURL("schemas/SocialFusionTimelineConfiguration.schema.json"), encoding: .utf8)
        #expect(
            try ConfigurationSchemaComposer.composedText() == file,
            "run Strategies/generate.sh")
    }

    @Test("schemas/ holds the schema of a JSON configuration file as users write it, and the bundled JSON configuration names it")
    func fileSchemaInStep() throws {
        let file = try String(contentsOf: Fixtures.repositoryURL("schemas/SocialFusionTimelineConfiguration.file.schema.json"), encoding: .utf8)
        #expect(
            try ConfigurationSchemaComposer.fileSchemaText() == file,
            "run: swift run engine schema print --file > schemas/SocialFusionTimelineConfiguration.file.schema.json")
        let schema = try JSONSchema(ConfigurationSchemaComposer.fileSchema())
        let bundled = try JSONReader().read(Data(contentsOf: Fixtures.repositoryURL("config/SocialFusionTimelineConfiguration.json")))
        #expect(bundled["$schema"]?.stringValue == "../schemas/SocialFusionTimelineConfiguration.file.schema.json")
        #expect(schema.validate(bundled).isValid)
        #expect(!schema.validate(try JSONReader().read(#"{"PositionPersistence": {}}"#)).isValid)
        // The loader reads the file as it reads any wrapped configuration: "$schema" is not a setting.
        #expect(ConfigurationLoader().read(data: Data(#"{"$schema": "x", "SocialFusionTimelineConfiguration": {}}"#.utf8)).diagnostics.isEmpty)
    }

    @Test("engine validate checks strategy names and parameters at their lines")
    func validation() {
        let json = """
            {"Restoration": {"Pipeline": [
              {"Strategy": "TemporalProximity", "Window": -5},
              {"Strategy": "ExactMach"}]}}
            """
        let diagnostics = ConfigurationLoader().read(data: Data(json.utf8), fileName: "c.json").diagnostics.map(\.description)
        #expect(
            diagnostics == [
                "c.json:2:47: error: Restoration.Pipeline[0].Window: -5 is less than the minimum 0 (allowed: ≥ 0 and ≤ 315360000)",
                "c.json:3:16: error: Restoration.Pipeline[1].Strategy: \"ExactMach\" is not one of the allowed values: \(PipelineTests.stageNames.map { "\"\($0)\"" }.joined(separator: ", ")); did you mean \"ExactMatch\"?",
            ])
    }
}
