import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// The `Weight` every restoration and fallback stage accepts; the registry applies it, so no
/// strategy handles it.
public enum StrategyWeight {
    /// `Weight`: a number ≥ 0, 1 by default.
    public static let parameter = Parameter<Double>(
        "Weight", help: "This stage's vote in a WeightedVote composition.", default: 1,
        minimum: 0, maximum: 1000)
}

extension StrategyKind {
    /// Finds the post to restore to (ExactMatch, NeighborAnchor, …, and the compositions).
    public static let restoration = StrategyKind(
        "restoration", label: "strategy", order: 0, component: (any RestorationStage).self, alsoAccepts: ["fallback"],
        commonParameters: [StrategyWeight.parameter.declaration],
        configuration: ConfigurationFace(
            title: "Pipeline stage",
            description: "One stage of the restoration pipeline: the registered strategy's name under Strategy, and its parameters beside it.",
            form: .dictionary, alsoLists: ["fallback", "positioning"]),
        finish: StrategyWeight.apply)
    /// Always answers, with low confidence (Fallback).
    public static let fallback = StrategyKind(
        "fallback", label: "strategy", order: 1, component: (any RestorationStage).self,
        commonParameters: [StrategyWeight.parameter.declaration], finish: StrategyWeight.apply)
    /// Puts the chosen post at the right pixel (ViewportAnchor).
    public static let positioning = StrategyKind("positioning", label: "strategy", order: 2, component: (any PositioningStage).self)

    /// True for the kinds that stand in a restoration pipeline.
    public var isStage: Bool { self == .restoration || self == .fallback || self == .positioning }
}

extension StrategyWeight {
    /// `stage` voting with the `Weight` in `options`: itself at the default weight.
    @Sendable static func apply(_ stage: any RestorationStage, _ options: StrategyOptions) -> any RestorationStage {
        let weight = parameter.value(in: options)
        return weight == parameter.defaultValue ? stage : WeightedStage(stage, weight: weight)
    }
}

extension BuiltStrategy {
    /// A restoration or fallback stage.
    public static func restoration(_ stage: any RestorationStage) -> BuiltStrategy { BuiltStrategy(stage) }
    /// A positioning stage.
    public static func positioning(_ stage: any PositioningStage) -> BuiltStrategy { BuiltStrategy(stage) }
}

extension StrategyOptions {
    /// For restoration compositions: the stages built from its arguments.
    public var children: [any RestorationStage] { components(as: (any RestorationStage).self) }
}
