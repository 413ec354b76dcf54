/// A problem found while reading a session, with where it is: `FILE:LINE:COL: warning: …`.
///
/// A warning means the line was skipped (or a field ignored) and the rest of the session still
/// counts; an error means the session cannot be read at all.
public struct SessionIssue: Error, Sendable, Equatable, CustomStringConvertible {
    /// A warning (the line skipped, the session still counts) or an error (the session cannot be read).
    public enum Severity: String, Sendable, Equatable {
        case warning, error
    }

    public var severity: Severity
    /// The file as the user named it.
    public var file: String
    /// 1-based; nil when the problem is with the file as a whole.
    public var line: Int?
    public var column: Int?
    public var message: String
    /// True when the file could not be read at all (missing, a directory, a device), as
    /// opposed to read and found wrong.
    public var isUnreadable: Bool

    public init(_ severity: Severity, file: String, line: Int? = nil, column: Int? = nil, _ message: String, unreadable: Bool = false) {
        self.severity = severity
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.isUnreadable = unreadable
    }

    public var description: String {
        var location = file
        if let line {
            location += ":\(line)"
            if let column { location += ":\(column)" }
        }
        return "\(location): \(severity.rawValue): \(message)"
    }
}
