import Logging

/// The level of each log category, derived from the configuration's `Debug` flags and the
/// command line's `--verbose` / `--quiet`.
///
/// - By default every category logs at `notice` and above.
/// - Each category's flag (`TimelineLogging`, `PositionLogging`, `SyncLogging`, `CacheLogging`)
///   lowers it to `debug`.
/// - `VerboseMode` (or `--verbose`) logs everything, at `trace`, in every category.
/// - `--quiet` keeps only errors, whatever the configuration says.
public struct LogLevels: Sendable, Equatable {
    public var levels: [LogCategory: Logger.Level]
    /// The level for labels that are not one of ours.
    public var otherLabels: Logger.Level

    public init(default level: Logger.Level = .notice) {
        levels = Dictionary(uniqueKeysWithValues: LogCategory.allCases.map { ($0, level) })
        otherLabels = level
    }

    /// The levels that the configuration's `Debug` section asks for: each category in
    /// `detailed` at `debug`, the others at `notice`; everything at `trace` in `verboseMode`.
    public init(detailed: Set<LogCategory>, verboseMode: Bool) {
        self.init(default: verboseMode ? .trace : .notice)
        if !verboseMode { for category in detailed { levels[category] = .debug } }
    }

    /// The levels of the timeline and position flags alone.
    public init(timelineLogging: Bool, positionLogging: Bool, verboseMode: Bool) {
        self.init(detailed: Set([timelineLogging ? .timeline : nil, positionLogging ? .position : nil].compactMap { $0 }), verboseMode: verboseMode)
    }

    /// The level for one category.
    public subscript(category: LogCategory) -> Logger.Level {
        levels[category] ?? otherLabels
    }

    /// The level for a swift-log label.
    public func level(forLabel label: String) -> Logger.Level {
        LogCategory(label: label).map { self[$0] } ?? otherLabels
    }

    /// These levels with the command line's verbosity applied: `verbose` logs everything,
    /// `quiet` only errors; `quiet` wins when both are given.
    public func applying(verbose: Bool, quiet: Bool) -> LogLevels {
        if quiet { return LogLevels(default: .error) }
        if verbose { return LogLevels(default: .trace) }
        return self
    }
}
