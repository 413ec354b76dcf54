import TimelineEngineConfiguration
import TimelineEngineLogging

extension TimelineLogging {
    /// The one call an app makes to log the way its configuration says: the levels of
    /// `Debug` per category, the sinks of `Logging.Sinks` built from `registry`'s log sinks.
    /// Call it once, early, from the app (a library never bootstraps logging); later calls and
    /// `TimelineEngine.reload(configuration:)` change the levels and sinks in place.
    ///
    /// Returns the sinks that could not be made, as messages; when none could, records go to
    /// standard error.
    @discardableResult
    public static func bootstrap(configuration: TimelineConfiguration, registry: StrategyRegistry = BuiltInStrategies.registry) -> [String] {
        routing.followsConfiguration = true
        let (levels, sinks, errors) = resolve(configuration, registry: registry, verbosity: routing.verbosity)
        bootstrap(levels: levels, sinks: sinks)
        return errors
    }

    /// Sets the levels and sinks of `routing` (the process's by default) from `configuration`
    /// again, when it follows a configuration (`bootstrap(configuration:)`); otherwise does
    /// nothing: the app logs its own way.
    @discardableResult
    public static func reconfigure(
        configuration: TimelineConfiguration, registry: StrategyRegistry = BuiltInStrategies.registry,
        routing: LogRouting = TimelineLogging.routing
    ) -> [String] {
        guard routing.followsConfiguration else { return [] }
        let (levels, sinks, errors) = resolve(configuration, registry: registry, verbosity: routing.verbosity)
        routing.update(levels: levels, sinks: sinks)
        return errors
    }

    /// The levels (with the command line's verbosity applied) and sinks `configuration` asks for.
    static func resolve(_ configuration: TimelineConfiguration, registry: StrategyRegistry, verbosity: LogRouting.Verbosity)
        -> (levels: LogLevels, sinks: [any LogSink], errors: [String])
    {
        let levels = configuration.debug.logLevels.applying(verbose: verbosity.verbose, quiet: verbosity.quiet)
        var (sinks, errors) = configuration.logging.makeSinks(factories: registry.logSinks)
        if sinks.isEmpty, !errors.isEmpty { sinks = [StderrLogSink()] }
        return (levels, sinks, errors)
    }
}
