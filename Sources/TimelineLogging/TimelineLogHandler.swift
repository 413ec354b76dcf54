import Foundation
import Logging

/// A swift-log handler that sends records at or above its level to every sink.
public struct TimelineLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public let label: String
    private let sinks: [any LogSink]

    public init(label: String, level: Logger.Level, sinks: [any LogSink]) {
        self.label = label
        self.logLevel = level
        self.sinks = sinks
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
        for sink in sinks { sink.write(record) }
    }
}

/// Sets swift-log up for TimelineEngine: category levels from the configuration and the
/// chosen sinks. Apps that bootstrap swift-log themselves skip this and still get our
/// categories as ordinary labels.
public enum TimelineLogging {
    /// Bootstraps swift-log once per process with `levels` and `sinks` (standard error when
    /// none are given).
    public static func bootstrap(levels: LogLevels, sinks: [any LogSink] = [StderrLogSink()]) {
        LoggingSystem.bootstrap { label in
            TimelineLogHandler(label: label, level: levels.level(forLabel: label), sinks: sinks)
        }
    }

    /// A logger for `category` that does not depend on the process-wide bootstrap, for tools
    /// and tests.
    public static func logger(_ category: LogCategory, levels: LogLevels, sinks: [any LogSink]) -> Logger {
        Logger(label: category.label) { label in
            TimelineLogHandler(label: label, level: levels.level(forLabel: label), sinks: sinks)
        }
    }
}
