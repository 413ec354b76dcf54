import Foundation
import Testing
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineJSONSchema
import TimelineEngineRestoration
import TimelineEngineRestorationModel
import TimelineEngineSessionSimulation
import TimelineEngineStrategyKit
import TimelineEngineStrategyTestSupport
import TimelineEngineTestSupport
import TimelineEngineValueTree

/// The shared conformance suite: every registered restoration, fallback and positioning type
/// runs its own named scenarios and the common ones below, and must keep the invariants. A new
/// strategy gets all of this without writing a test.
@Suite("Strategy conformance", .timeLimit(.minutes(10)))
struct ConformanceTests {
    static let types = BuiltInStrategies.registry.stageTypes
    static let base = Date(timeIntervalSince1970: 1_700_000_000)

    static func posts(_ count: Int, prefix: String = "p", heights: Bool = true, text: Bool = true) -> [Post] {
        var result: [Post] = []
        result.reserveCapacity(count)
        for i in 0..<count {
            let created = base.addingTimeInterval(Double(-60 * i))
            let body: String? = text ? "post \(i) about topic \(i % 13)" : nil
            let height: Double? = heights ? Double(80 + (i * 37) % 120) : nil
            result.append(Post(id: prefix + String(i), createdAt: created, author: "a" + String(i % 7), text: body, height: height))
        }
        return result
    }

    static func snapshot(of posts: [Post], at index: Int) -> PositionSnapshot {
        PositionSnapshot(
            postId: posts[index].id, postCreatedAt: posts[index].createdAt, viewportY: -25, contentOffset: Double(index) * 100,
            viewportHeight: 800, index: index, timelineCount: posts.count,
            neighbors: .init(
                above: (max(0, index - 5)..<index).reversed().map { posts[$0].id },
                below: (index + 1..<min(posts.count, index + 6)).map { posts[$0].id }),
            text: posts[index].text, savedAt: base, deviceId: "test")
    }

    /// The common scenarios: name, timeline, snapshot.
    static let common: [(String, [Post], PositionSnapshot?)] = {
        let twenty = posts(20)
        let saved = snapshot(of: twenty, at: 8)
        var algorithmic = twenty
        var generator = SimulationRandom(seed: 42)
        algorithmic.shuffle(using: &generator)
        var equal = twenty
        for i in equal.indices { equal[i].createdAt = base }
        let million = posts(1_000_000, text: false)
        return [
            ("empty timeline", [], saved),
            ("one post", [twenty[0]], saved),
            ("post present", twenty, saved),
            ("post deleted", twenty.filter { $0.id != saved.postId }, saved),
            ("every post replaced", posts(20, prefix: "q"), saved),
            ("algorithmic order", algorithmic, saved),
            ("equal timestamps", equal, saved),
            ("heights unknown", posts(20, heights: false), saved),
            ("no snapshot", twenty, nil),
            ("1,000,000 posts", million, snapshot(of: million, at: 500_000)),
        ]
    }()

    /// A composition's scenario's stages, built through the registry, each with its kind's
    /// common parameters (`Weight`).
    static func children(_ scenario: StrategyScenario) throws -> [any RestorationStage] {
        let registry = BuiltInStrategies.registry
        return try scenario.stages.map { stage in
            let type = try #require(registry[stage.name])
            return try registry.component(
                ComponentSpec(name: stage.name, parameters: stage.parameterValues), type.kind, as: (any RestorationStage).self)
        }
    }

    static func build(_ type: StrategyType) throws -> BuiltStrategy {
        var options = StrategyOptions(parameters: type.defaults)
        if type.isComposition {
            let exact = try ExactMatchType.make()
            options.components = [exact]
        }
        return try type.make(options)
    }

    @Test(
        "named scenarios give the expected post, method, confidence, placement and explanation",
        arguments: types.filter { !$0.examples(of: StrategyScenario.self).isEmpty }.map(\.name))
    func namedScenarios(_ name: String) throws {
        let type = try #require(BuiltInStrategies.registry[name])
        for result in try ScenarioRunner.run(type, children: Self.children) {
            let scenario = result.scenario
            let label = "\(name): \(scenario.name)"
            #expect(result.chosenPostId == scenario.expectedPostId, "\(label)")
            if let method = scenario.expectedMethod { #expect(result.candidate?.method == method, "\(label)") }
            if let confidence = scenario.expectedConfidence {
                #expect(abs((result.candidate?.confidence ?? -1) - confidence) < 1e-6, "\(label): \(result.candidate?.confidence ?? -1)")
            }
            if let placement = scenario.expectedPlacement { #expect(result.candidate?.placement == placement, "\(label)") }
            if let explanation = scenario.expectedExplanation { #expect(result.candidate?.explanation == explanation, "\(label)") }
        }
    }

    @Test("common scenarios keep the invariants", arguments: types.map(\.name))
    func invariants(_ name: String) throws {
        let type = try #require(BuiltInStrategies.registry[name])
        let built = try Self.build(type)
        for (scenario, posts, snapshot) in Self.common {
            let index = TimelineIndex(Timeline(posts: posts, viewportHeight: 800))
            let request = RestorationRequest(snapshot: snapshot, index: index)
            if let stage = built.as((any RestorationStage).self) {
                var trace: [StageVerdict] = []
                let first = stage.propose(request, trace: &trace, depth: 0)
                let second = stage.propose(request, trace: &trace, depth: 0)
                #expect(first == second, "\(name) / \(scenario): not deterministic")
                if posts.isEmpty { #expect(first == nil, "\(name) / \(scenario)") }
                if type.kind == .fallback, !posts.isEmpty { #expect(first != nil, "\(name) / \(scenario): a fallback always answers") }
                if let first {
                    #expect(posts.indices.contains(first.index), "\(name) / \(scenario): index out of bounds")
                    #expect((0...1).contains(first.confidence), "\(name) / \(scenario): confidence out of range")
                }
            } else if let stage = built.as((any PositioningStage).self) {
                guard !posts.isEmpty else { continue }
                for placement in [Placement.standIn, .postAtTop, .topOfTimeline, .contentOffset(12_345)] {
                    let candidate = Candidate(
                        index: posts.count / 2, confidence: 0.5, method: .fallback, placement: placement,
                        strategy: "Test", explanation: "test")
                    let restoration = stage.place(candidate, request: request)
                    #expect(posts.indices.contains(restoration.index), "\(name) / \(scenario)")
                    #expect(posts[restoration.index].id == restoration.postId, "\(name) / \(scenario): the returned post exists")
                    #expect(restoration.contentOffset >= 0 && restoration.contentOffset <= index.maximumContentOffset)
                }
            } else {
                Issue.record("\(name) is not a pipeline stage")
            }
        }
    }

    @Test("out-of-range parameters are rejected by the schema and by the builder", arguments: types.map(\.name))
    func parameterValidation(_ name: String) throws {
        let type = try #require(BuiltInStrategies.registry[name])
        for (parameter, member) in type.parameterSchema["properties"]?.dictionaryValue ?? [:] {
            let schema = member.value
            var bad: [Value] = [.string("not a \(schema["type"]?.stringValue ?? "value")")]
            if let minimum = schema["minimum"]?.numberValue { bad.append(.real(minimum - 1)) }
            if let maximum = schema["maximum"]?.numberValue { bad.append(.real(maximum + 1)) }
            if schema["enum"] != nil { bad[0] = .string("NoSuchValue") }
            for value in bad {
                var stage: [(String, Value)] = [("Strategy", .string(name)), (parameter.string, value)]
                if type.isComposition { stage.append(("Stages", .array([.dictionary([("Strategy", .string("ExactMatch"))])]))) }
                let document = Value.dictionary([("Restoration", .dictionary([("Pipeline", .array([.dictionary(stage)]))]))])
                let errors = ConfigurationSchema.embedded.compiled.validate(document).errors
                #expect(!errors.isEmpty, "\(name).\(parameter) = \(value) was accepted by the schema")
                let spec =
                    "\(name)(\(type.isComposition ? "ExactMatch, " : "")\(parameter): \(value.stringValue.map { "'\($0)'" } ?? value.description))"
                #expect(throws: PipelineError.self, "\(spec)") { try PipelineBuilder().build(spec: spec) }
            }
        }
    }
}

enum ExactMatchType {
    static func make() throws -> any RestorationStage {
        guard let stage = try BuiltInStrategies.registry["ExactMatch"]!.make(StrategyOptions()).as((any RestorationStage).self) else {
            throw StrategyError("ExactMatch did not build")
        }
        return stage
    }
}
