import Foundation
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineFirstMatch
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// The conformance checks `engine strategies check` runs on a restoration or fallback strategy,
/// built through the registry as a pipeline builds it: its own named scenarios (post, method,
/// confidence, placement, explanation) and the common ones every stage must survive (an empty
/// timeline, no snapshot, every post replaced), each run twice for determinism. The plugin
/// loader runs them before a plugin's strategies are used.
public struct StrategyCheck: Sendable {
    /// One check and what went wrong, if anything.
    public struct Result: Sendable, Equatable {
        public var strategy: String
        public var check: String
        /// Nil when the check passed.
        public var failure: String?
    }

    public let registry: StrategyRegistry
    /// The confidence FirstMatch asks for by default; a stage whose scenarios all stay under it
    /// only ever wins as a pipeline's last answer.
    public let minimumConfidence: Double

    public init(registry: StrategyRegistry, configuration: TimelineConfiguration = .defaults) {
        self.registry = registry
        minimumConfidence = configuration.restoration.minimumConfidence ?? FirstMatchStrategy.minimumConfidenceParameter.defaultValue
    }

    /// Every check for `type`.
    public func run(_ type: StrategyType) -> [Result] {
        var results: [Result] = []
        for scenario in type.examples(of: StrategyScenario.self) {
            results.append(Result(strategy: type.name, check: scenario.name, failure: failure(of: scenario, type: type)))
        }
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let posts = (0..<20).map {
            Post(
                id: "c\($0)", createdAt: base.addingTimeInterval(Double(-60 * $0)), author: "a\($0 % 3)",
                text: "common post \($0)", height: 100)
        }
        let saved = PositionSnapshot(
            postId: "c8", postCreatedAt: posts[8].createdAt, viewportY: -20, contentOffset: 800, index: 8,
            timelineCount: 20, neighbors: .init(above: ["c7", "c6"], below: ["c9", "c10"]),
            text: posts[8].text, author: posts[8].author)
        let replaced = posts.map { Post(id: "r" + $0.id, createdAt: $0.createdAt, author: $0.author, text: $0.text, height: $0.height) }
        for (name, timeline, snapshot) in [
            ("common: empty timeline", [Post](), Optional(saved)), ("common: no snapshot", posts, nil),
            ("common: post present", posts, saved), ("common: every post replaced", replaced, saved),
        ] {
            results.append(Result(strategy: type.name, check: name, failure: commonFailure(type, Timeline(posts: timeline), snapshot)))
        }
        return results
    }

    /// A warning about `type` that is not a failure: a stage whose every scenario stays under
    /// `Restoration.MinimumConfidence` never wins inside FirstMatch unless it answers last.
    public func warnings(_ type: StrategyType) -> [String] {
        guard type.kind == .restoration, !type.isComposition else { return [] }
        let confidences = type.examples(of: StrategyScenario.self).compactMap { scenario -> Double? in
            guard let stage = try? stage(type, parameters: scenario.parameters) else { return nil }
            var trace: [StageVerdict] = []
            return stage.propose(scenario.request, trace: &trace, depth: 0)?
                .confidence
        }
        guard !confidences.isEmpty, confidences.allSatisfy({ $0 < minimumConfidence }) else { return [] }
        return [
            "\(type.name): every scenario's confidence is below Restoration.MinimumConfidence (\(minimumConfidence)); inside FirstMatch it never wins unless it answers last"
        ]
    }

    private func stage(_ type: StrategyType, parameters: Value.Dictionary) throws(PipelineError) -> any RestorationStage {
        guard
            let stage = try registry.build(StrategyNode(name: type.name, parameters: parameters), kind: .restoration).as((any RestorationStage).self)
        else {
            throw PipelineError("\(type.name) did not build a restoration stage")
        }
        return stage
    }

    private func failure(of scenario: StrategyScenario, type: StrategyType) -> String? {
        let built: any RestorationStage
        do {
            built = try stage(type, parameters: scenario.parameters)
        } catch {
            return "cannot be built: \(error.description)"
        }
        var trace: [StageVerdict] = []
        let candidate = built.propose(
            scenario.request,
            trace: &trace, depth: 0)
        let chosen = candidate.map { scenario.timeline.posts[$0.index].id }
        guard chosen == scenario.expectedPostId else {
            return "expected \(scenario.expectedPostId.map { "post \($0)" } ?? "no candidate"), got \(chosen.map { "post \($0)" } ?? "no candidate")"
        }
        guard let candidate else { return nil }
        if let method = scenario.expectedMethod, candidate.method != method {
            return "expected method \(method), got \(candidate.method)"
        }
        if let confidence = scenario.expectedConfidence, abs(candidate.confidence - confidence) > 1e-6 {
            return "expected confidence \(confidence), got \(candidate.confidence)"
        }
        if let placement = scenario.expectedPlacement, candidate.placement != placement {
            return "expected placement \(placement), got \(candidate.placement)"
        }
        if let explanation = scenario.expectedExplanation, candidate.explanation != explanation {
            return "expected the explanation \(Value.quote(explanation)), got \(Value.quote(candidate.explanation))"
        }
        return nil
    }

    private func commonFailure(_ type: StrategyType, _ timeline: Timeline, _ snapshot: PositionSnapshot?) -> String? {
        let built: any RestorationStage
        do {
            built = try stage(type, parameters: [:])
        } catch {
            return "cannot be built with its defaults: \(error.description)"
        }
        let request = RestorationRequest(snapshot: snapshot, index: TimelineIndex(timeline))
        var trace: [StageVerdict] = []
        let first = built.propose(request, trace: &trace, depth: 0)
        let second = built.propose(request, trace: &trace, depth: 0)
        guard first == second else { return "two proposals on the same input differ" }
        if type.kind == .fallback, !timeline.posts.isEmpty, first == nil { return "a fallback must always answer" }
        guard let first else { return nil }
        guard first.index >= 0, first.index < timeline.posts.count else { return "index \(first.index) is outside 0..<\(timeline.posts.count)" }
        guard (0...1).contains(first.confidence) else { return "confidence \(first.confidence) is outside [0, 1]" }
        return nil
    }
}
