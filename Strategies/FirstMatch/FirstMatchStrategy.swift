import Foundation
import StrategyKit
import TimelineCore
import ValueTree

/// FirstMatch: runs its stages in order; the first candidate whose confidence reaches
/// `MinimumConfidence` wins. When none does, the last stage that answered decides (normally
/// the Fallback). `A > B > C` in a spec is FirstMatch(A, B, C).
public struct FirstMatchStrategy: RestorationStage {
    public static let type = StrategyType(
        name: "FirstMatch", kind: .restoration,
        summary: "Tries its stages in order; the first confident enough candidate wins, else the last answer.",
        parameterSchema: ParameterSchema.object([
            ("MinimumConfidence", ParameterSchema.number(
                "The confidence (0 to 1) a candidate needs; without it, Restoration.MinimumConfidence applies.",
                default: 0.5, minimum: 0, maximum: 1)),
            ("Weight", ParameterSchema.weight),
        ]),
        isComposition: true
    ) { options in
        guard !options.children.isEmpty else { throw StrategyError("FirstMatch needs at least one stage") }
        return .restoration(FirstMatchStrategy(stages: options.children, minimumConfidence: options.double("MinimumConfidence") ?? 0.5,
                                               weight: options.double("Weight") ?? 1))
    }

    public let name = "FirstMatch"
    public let stages: [any RestorationStage]
    public let minimumConfidence: Double
    public let weight: Double

    public init(stages: [any RestorationStage], minimumConfidence: Double = 0.5, weight: Double = 1) {
        self.stages = stages
        self.minimumConfidence = minimumConfidence
        self.weight = weight
    }

    public func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth: Int) -> Candidate? {
        var lastAnswer: (candidate: Candidate, trace: Int)?
        for stage in stages {
            let (candidate, position) = CompositionStep.run(stage, request, trace: &trace, depth: depth) { candidate in
                guard let candidate else { return "no candidate" }
                if candidate.confidence >= minimumConfidence { return "chosen" }
                return "passed over: confidence \(format(candidate.confidence)) below \(format(minimumConfidence))"
            }
            guard let candidate else { continue }
            if candidate.confidence >= minimumConfidence { return candidate }
            lastAnswer = (candidate, position)
        }
        guard let lastAnswer else { return nil }
        trace[lastAnswer.trace].verdict = "chosen: the last stage that answered (no candidate reached \(format(minimumConfidence)))"
        return lastAnswer.candidate
    }

    private func format(_ value: Double) -> String { String(format: "%.2f", value) }
}
