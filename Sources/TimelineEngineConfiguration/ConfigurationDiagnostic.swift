import TimelineEngineValueTree

/// One problem found in a configuration file, in the form compilers use:
/// `FILE:LINE:COL: error: PositionPersistence.FallbackStrategy: message`.
public struct ConfigurationDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// Whether the problem stops the file from loading strictly (`error`) or not (`warning`).
    public enum Severity: String, Sendable, Equatable {
        case error
        case warning
    }

    /// What kind of problem it is; the command line maps `unreadable` to exit code 2.
    public enum Kind: String, Sendable, Equatable {
        /// The file could not be opened or read, or is too large.
        case unreadable
        /// Not well-formed XML, not a property list, or not JSON.
        case malformed
        /// Read fine, but breaks the configuration schema.
        case schema
    }

    public var severity: Severity
    public var kind: Kind
    /// The file as the user named it.
    public var file: String?
    public var location: SourceLocation?
    /// The key path inside the configuration, when the problem is about one value.
    public var path: ValuePath?
    /// The schema keyword that failed (`type`, `enum`, `additionalProperties`, `deprecated`, …).
    public var keyword: String?
    public var message: String

    public init(
        severity: Severity, kind: Kind, file: String?, location: SourceLocation?, path: ValuePath?,
        keyword: String? = nil, message: String
    ) {
        self.severity = severity
        self.kind = kind
        self.file = file
        self.location = location
        self.path = path
        self.keyword = keyword
        self.message = message
    }

    /// `FILE:LINE:COL: severity: PATH: message`, leaving out what is unknown.
    public var description: String {
        var text = ""
        if let file { text += file + ":" }
        if let location {
            text += "\(location.line):"
            if let column = location.column { text += "\(column):" }
        }
        if !text.isEmpty { text += " " }
        text += "\(severity.rawValue): "
        if let path, !path.isRoot { text += "\(path): " }
        return text + message
    }
}
