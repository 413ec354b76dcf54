import TimelineEngineKit

/// The pipeline a command runs: `--strategy` in spec notation, or the configuration's. A bad
/// spec exits 2, a configuration whose pipeline cannot be built exits 1.
enum PipelineInput {
    static func build(_ engine: ConfiguredEngine, strategy: String?) throws -> Pipeline {
        let builder = PipelineBuilder(registry: engine.registry, configuration: engine.configuration)
        do throws(PipelineError) {
            if let strategy { return try builder.build(spec: strategy) }
            return try builder.build()
        } catch {
            Console.error("error: \(error.description)")
            throw strategy == nil ? EngineExit.invalid : EngineExit.usage
        }
    }
}
