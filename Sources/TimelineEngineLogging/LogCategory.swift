import Logging

/// The areas of the engine that log, each with its own logger label and level.
public enum LogCategory: String, CaseIterable, Sendable {
    case timeline
    case position
    case sync
    case cache

    /// The swift-log label: `TimelineEngine.timeline`, `TimelineEngine.position`, …
    public var label: String { "TimelineEngine.\(rawValue)" }

    /// The category a swift-log label belongs to, if it is one of ours.
    public init?(label: String) {
        guard label.hasPrefix("TimelineEngine.") else { return nil }
        self.init(rawValue: String(label.dropFirst("TimelineEngine.".count)))
    }

    /// A logger for this category. Its level is decided by the handler `TimelineLogging`
    /// bootstraps, or by the app's own logging backend.
    public var logger: Logger { Logger(label: label) }
}
