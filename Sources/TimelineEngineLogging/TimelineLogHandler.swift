import Foundation
import Logging

/// A swift-log handler that sends records at or above its level to every sink.
///
/// Made with a `LogRouting`, it takes its level and sinks from it at every call, so that a
/// change of configuration reaches loggers made before it; a level set on the logger itself
/// (`logger.logLevel = .trace`) wins over the routing's.
public struct TimelineLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public let label: String
    private let routing: LogRouting
    private var ownLevel: Logger.Level?

    /// A handler with a fixed level and sinks.
    public init(label: String, level: Logger.Level, sinks: [any LogSink]) {
        self.label = label
        self.routing = LogRouting(levels: LogLevels(default: level), sinks: sinks)
        self.ownLevel = level
    }

    /// A handler that follows `routing`.
    public init(label: String, routing: LogRouting) {
        self.label = label
        self.routing = routing
    }

    public var logLevel: Logger.Level {
        get { ownLevel ?? routing.level(forLabel: label) }
        set { ownLevel = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        let record = LogRecord(
            level: event.level, label: label, message: event.message.description,
            metadata: merged.mapValues { $0.description }, source: event.source,
            file: event.file, function: event.function, line: event.line)
        for sink in routing.sinks { sink.write(record) }
    }
}

/// Sets swift-log up for TimelineEngine: category levels from the configuration and the
/// chosen sinks. An executable calls `bootstrap` once; a library never does. Apps that
/// bootstrap swift-log themselves skip this and still get our categories as ordinary labels.
public enum TimelineLogging {
    /// The routing of this process once `bootstrap` ran.
    public static let routing = LogRouting()

    /// swift-log's bootstrap, run once: a static's initializer runs once per process, whoever
    /// reaches it first.
    private static let installHandler: Void = LoggingSystem.bootstrap { label in TimelineLogHandler(label: label, routing: routing) }

    /// Sends every logger of the process through `routing`, with `levels` and `sinks`
    /// (standard error when none are given). swift-log is bootstrapped on the first call;
    /// a later call only changes the levels and sinks, for loggers old and new alike.
    public static func bootstrap(levels: LogLevels, sinks: [any LogSink] = [StderrLogSink()]) {
        routing.update(levels: levels, sinks: sinks)
        _ = installHandler
    }

    /// A logger for `category` that does not depend on the process-wide bootstrap, for tools
    /// and tests.
    public static func logger(_ category: LogCategory, levels: LogLevels, sinks: [any LogSink]) -> Logger {
        let routing = LogRouting(levels: levels, sinks: sinks)
        return Logger(label: category.label) { label in TimelineLogHandler(label: label, routing: routing) }
    }
}
