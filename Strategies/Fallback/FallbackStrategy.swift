import Foundation
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// Fallback: always answers when the timeline has posts, with low confidence. `Mode`:
///
/// - `NearestContent`: the post at the same relative position as the saved one,
///   `round(savedIndex × count / savedCount)` with halves rounded up, clamped; the middle
///   (count / 2, rounded down) only when the snapshot has no index. (The seed app always used
///   the middle.) Confidence 0.2.
/// - `TopOfTimeline`: index 0, offset 0. Confidence 0.1.
/// - `LastKnownPosition`: the saved content offset, clamped. Confidence 0.25.
/// - `NewestPost` / `OldestPost`: the greatest / least `createdAt` (not the top of an
///   algorithmic feed); a tie goes to the lower index. Confidence 0.15.
///
/// Without `Mode`, the pipeline passes `PositionPersistence.FallbackStrategy`.
public struct FallbackStrategy: RestorationStage, DeclaredStrategy {
    /// Where the fallback goes; `PositionPersistence.FallbackStrategy` takes its values from here.
    public enum Mode: String, ParameterChoice {
        case nearestContent = "NearestContent"
        case topOfTimeline = "TopOfTimeline"
        case lastKnownPosition = "LastKnownPosition"
        case newestPost = "NewestPost"
        case oldestPost = "OldestPost"
    }

    public static let modeParameter = Parameter<Mode>(
        "Mode", help: "Where to go when no better position is found.",
        default: .nearestContent, inherits: PositionPersistenceSettings.inheritedKey(\.$fallbackStrategy))

    public static let type = StrategyType(
        name: "Fallback", kind: .fallback,
        summary: "Always answers, with low confidence: same relative position, top, saved offset, newest or oldest post.",
        parameters: [modeParameter.declaration],
        examples: FallbackStrategy.scenarios
    ) { options in
        .restoration(FallbackStrategy(mode: options(modeParameter)))
    }

    public let mode: Mode

    public init(mode: Mode = modeParameter.defaultValue) {
        self.mode = mode
    }

    /// `index` of `count` mapped to the same relative position among `newCount` posts, rounded
    /// half up, without overflow however large the saved figures are.
    static func scale(_ index: Int, from count: Int, to newCount: Int) -> Int {
        let saved = min(max(0, index), count)
        let (product, overflow) = saved.multipliedReportingOverflow(by: newCount)
        let scaled: Int
        if !overflow, product <= Int.max / 2 - count {
            scaled = (2 * product + count) / (2 * count)
        } else {
            scaled = Int((Double(saved) / Double(count) * Double(newCount)).rounded())
        }
        return min(max(0, scaled), newCount - 1)
    }

    public func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth: Int) -> Candidate? {
        let index = request.index
        let count = index.count
        guard count > 0 else { return nil }
        let snapshot = request.snapshot
        switch mode {
        case .nearestContent:
            if let saved = snapshot?.index, let savedCount = snapshot?.timelineCount, savedCount > 0 {
                let chosen = Self.scale(saved, from: savedCount, to: count)
                return candidate(chosen, 0.2, .postAtTop, "NearestContent: index \(saved) of \(savedCount) maps to index \(chosen) of \(count)")
            }
            return candidate(count / 2, 0.2, .postAtTop, "NearestContent: the snapshot has no index, so the middle of the timeline")
        case .topOfTimeline:
            return candidate(0, 0.1, .topOfTimeline, "TopOfTimeline: the top of the timeline")
        case .lastKnownPosition:
            let offset = index.clamp(offset: snapshot?.contentOffset ?? 0)
            let chosen = index.index(atOffset: offset) ?? 0
            return candidate(
                chosen, 0.25, .contentOffset(snapshot?.contentOffset ?? 0),
                "LastKnownPosition: the saved scroll offset \(Int(offset.rounded(.down))) pt")
        case .newestPost:
            return candidate(index.newestIndex ?? 0, 0.15, .postAtTop, "NewestPost: the most recently created post")
        case .oldestPost:
            return candidate(index.oldestIndex ?? 0, 0.15, .postAtTop, "OldestPost: the earliest created post")
        }
    }

    private func candidate(_ index: Int, _ confidence: Double, _ placement: Placement, _ explanation: String) -> Candidate {
        Candidate(
            index: index, confidence: confidence, method: .fallback, placement: placement, strategy: name,
            explanation: explanation)
    }

    static let scenarios: [StrategyScenario] = {
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        let offsets: [Double] = [-500, -100, -900, -50, -700]
        let posts = offsets.enumerated().map { Post(id: "p\($0.offset)", createdAt: base.addingTimeInterval($0.element), height: 100) }
        let snapshot = PositionSnapshot(postId: "gone", contentOffset: 250, index: 5, timelineCount: 10)
        func mode(_ name: String) -> Value.Dictionary { ["Mode": Value.Member(value: .string(name))] }
        return [
            StrategyScenario(
                name: "NearestContent keeps the relative position", timeline: Timeline(posts: posts), snapshot: snapshot,
                parameters: mode("NearestContent"), expectedPostId: "p3", expectedMethod: .fallback,
                expectedConfidence: 0.2, expectedPlacement: .postAtTop,
                expectedExplanation: "NearestContent: index 5 of 10 maps to index 3 of 5"),
            StrategyScenario(
                name: "TopOfTimeline", timeline: Timeline(posts: posts), snapshot: snapshot,
                parameters: mode("TopOfTimeline"), expectedPostId: "p0", expectedMethod: .fallback,
                expectedConfidence: 0.1, expectedPlacement: .topOfTimeline, expectedExplanation: "TopOfTimeline: the top of the timeline"),
            StrategyScenario(
                name: "LastKnownPosition", timeline: Timeline(posts: posts, viewportHeight: 200), snapshot: snapshot,
                parameters: mode("LastKnownPosition"), expectedPostId: "p2", expectedMethod: .fallback,
                expectedConfidence: 0.25, expectedPlacement: .contentOffset(250),
                expectedExplanation: "LastKnownPosition: the saved scroll offset 250 pt"),
            StrategyScenario(
                name: "NewestPost is not the top of an algorithmic feed", timeline: Timeline(posts: posts),
                snapshot: snapshot, parameters: mode("NewestPost"), expectedPostId: "p3", expectedMethod: .fallback,
                expectedConfidence: 0.15, expectedPlacement: .postAtTop, expectedExplanation: "NewestPost: the most recently created post"),
            StrategyScenario(
                name: "OldestPost", timeline: Timeline(posts: posts), snapshot: snapshot,
                parameters: mode("OldestPost"), expectedPostId: "p2", expectedMethod: .fallback,
                expectedConfidence: 0.15, expectedPlacement: .postAtTop, expectedExplanation: "OldestPost: the earliest created post"),
        ]
    }()
}
