import TimelineEngineConfiguration
import TimelineEngineRestoration

/// A pipeline under comparison, with the name its rows carry.
public struct ComparisonCandidate: Sendable {
    public var name: String
    public var pipeline: Pipeline

    public init(name: String, pipeline: Pipeline) {
        self.name = name
        self.pipeline = pipeline
    }

    /// The name of the configured pipeline's row.
    public static let configuredName = "configured"
    /// The name of the no-smart-restoration baseline's row.
    public static let baselineName = "baseline"
    /// The baseline: an app that only finds the exact post, and otherwise starts at the top.
    public static let baselineSpec = "ExactMatch > Fallback(Mode: TopOfTimeline)"

    /// The pipelines `engine compare` runs.
    ///
    /// With `specs`, the configured pipeline, one candidate per spec (named by the spec), then
    /// the baseline, so that a new pipeline is always seen beside what ships and what an app
    /// without smart restoration does. Without, the configured pipeline, then each single
    /// restoration strategy of the registry followed by the configured `Fallback`, then the
    /// baseline.
    public static func candidates(
        configuration: TimelineConfiguration, specs: [String],
        registry: StrategyRegistry = BuiltInStrategies.registry
    ) throws(PipelineError) -> [ComparisonCandidate] {
        let builder = PipelineBuilder(registry: registry, configuration: configuration)
        var candidates = [ComparisonCandidate(name: configuredName, pipeline: try builder.build())]
        if !specs.isEmpty {
            for spec in specs { candidates.append(ComparisonCandidate(name: spec, pipeline: try builder.build(spec: spec))) }
        } else {
            for type in registry.types(of: .restoration) where !type.isComposition {
                candidates.append(ComparisonCandidate(name: type.name, pipeline: try builder.build(spec: "\(type.name) > Fallback")))
            }
        }
        candidates.append(ComparisonCandidate(name: baselineName, pipeline: try builder.build(spec: baselineSpec)))
        return candidates
    }
}
