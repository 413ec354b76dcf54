import Logging

/// The loggers the library writes to, one per category. swift-log's convention is that a library
/// takes its `Logger` from the app: an app passes its own (`EngineLoggers(logger)`) to the store,
/// the engine and the loaders, and each record comes through it with its category in the
/// metadata (`category: sync`). By default each category has swift-log's logger of its label
/// (`TimelineEngine.sync`, …), which the app's bootstrap, or `TimelineLogging`, routes.
public struct EngineLoggers: Sendable {
    /// Loading and refreshing timelines, and reading the configuration.
    public var timeline: Logger
    /// Saved positions and restorations.
    public var position: Logger
    /// Cross-device sync.
    public var sync: Logger
    /// The store: its migrations, cached timelines and maintenance.
    public var cache: Logger

    /// swift-log's logger of each category's label.
    public init() {
        timeline = LogCategory.timeline.logger
        position = LogCategory.position.logger
        sync = LogCategory.sync.logger
        cache = LogCategory.cache.logger
    }

    /// `logger` for every category, each record carrying its category as the `category` metadata.
    public init(_ logger: Logger) {
        func tagged(_ category: LogCategory) -> Logger {
            Logger(label: logger.label) { _ in CategoryTagging(base: logger.handler, category: category.rawValue) }
        }
        timeline = tagged(.timeline)
        position = tagged(.position)
        sync = tagged(.sync)
        cache = tagged(.cache)
    }
}

/// A handler that adds its category to each record's metadata and hands the record on. The app's
/// handler may be a class whose metadata every copy of its logger shares, so the category is
/// added to each record, not set on the handler.
struct CategoryTagging: LogHandler {
    var base: any LogHandler
    let category: String

    var logLevel: Logger.Level {
        get { base.logLevel }
        set { base.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { base.metadata }
        set { base.metadata = newValue }
    }

    var metadataProvider: Logger.MetadataProvider? {
        get { base.metadataProvider }
        set { base.metadataProvider = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { base[metadataKey: key] }
        set { base[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        var metadata = event.metadata ?? [:]
        if metadata["category"] == nil { metadata["category"] = "\(category)" }
        event.metadata = metadata
        base.log(event: event)
    }
}
