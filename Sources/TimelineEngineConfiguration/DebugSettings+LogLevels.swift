import TimelineEngineLogging

extension DebugSettings {
    /// The log levels these `Debug` flags ask for: `TimelineLogging`, `PositionLogging`,
    /// `SyncLogging` and `CacheLogging` lower their category to `debug`, `VerboseMode` logs
    /// everything at `trace`.
    public var logLevels: LogLevels {
        let flags: [(LogCategory, Bool)] = [(.timeline, timelineLogging), (.position, positionLogging), (.sync, syncLogging), (.cache, cacheLogging)]
        return LogLevels(detailed: Set(flags.filter(\.1).map(\.0)), verboseMode: verboseMode)
    }
}

extension LoggingSettings {
    /// Creates the configured sinks by name from `factories` (the built-ins by default).
    /// Unknown names and sinks that cannot be created are returned as errors, so the caller can
    /// log them and carry on with the rest.
    public func makeSinks(factories: [LogSinkFactory] = LogSinkFactory.builtIns) -> (sinks: [any LogSink], errors: [String]) {
        var sinks: [any LogSink] = []
        var errors: [String] = []
        for spec in self.sinks {
            guard let factory = factories.first(where: { $0.name == spec.name }) else {
                errors.append("unknown log sink \"\(spec.name)\"; available: \(factories.map(\.name).joined(separator: ", "))")
                continue
            }
            var options: [String: String] = [:]
            for (key, member) in spec.parameters {
                if let text = member.value.stringValue { options[key.string] = text }
            }
            do {
                sinks.append(try factory.make(options))
            } catch {
                errors.append("log sink \"\(spec.name)\": \(error)")
            }
        }
        return (sinks, errors)
    }
}
