import Foundation
import Logging

/// One log message as the sinks receive it.
public struct LogRecord: Sendable {
    public var date: Date
    public var level: Logger.Level
    /// The logger's label, e.g. `TimelineEngine.position`.
    public var label: String
    public var message: String
    public var metadata: [String: String]
    public var source: String
    public var file: String
    public var function: String
    public var line: UInt

    public init(
        date: Date = Date(), level: Logger.Level, label: String, message: String, metadata: [String: String] = [:],
        source: String = "", file: String = "", function: String = "", line: UInt = 0
    ) {
        self.date = date
        self.level = level
        self.label = label
        self.message = message
        self.metadata = metadata
        self.source = source
        self.file = file
        self.function = function
        self.line = line
    }

    /// The category name (`position`) for our labels, or the label itself.
    public var categoryName: String { LogCategory(label: label)?.rawValue ?? label }
}
