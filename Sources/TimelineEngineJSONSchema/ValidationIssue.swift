import TimelineEngineValueTree

/// One finding of schema validation: where in the instance, which keyword, and what is wrong.
public struct ValidationIssue: Sendable, Equatable, CustomStringConvertible {
    /// How bad it is: an error fails validation, a warning is reported and passes.
    public enum Severity: String, Sendable, Equatable, Comparable {
        case warning
        case error

        public static func < (lhs: Severity, rhs: Severity) -> Bool {
            lhs == .warning && rhs == .error
        }
    }

    public var severity: Severity
    /// The instance location: the key path of the offending value (for an unknown key, the path
    /// of that key).
    public var instancePath: ValuePath
    /// The JSON Pointer of the keyword in the schema, e.g. `/properties/Enabled/type`.
    public var schemaPath: String
    /// The keyword that failed: `type`, `enum`, `additionalProperties`, `deprecated`, …
    public var keyword: String
    /// The message, e.g. `expected integer, found string "5"`.
    public var message: String
    /// Where the offending value (or key) was written, when the instance came from a file.
    public var location: SourceLocation?

    public init(
        severity: Severity = .error, instancePath: ValuePath, schemaPath: String, keyword: String,
        message: String, location: SourceLocation?
    ) {
        self.severity = severity
        self.instancePath = instancePath
        self.schemaPath = schemaPath
        self.keyword = keyword
        self.message = message
        self.location = location
    }

    /// `PATH: message`.
    public var description: String { "\(instancePath): \(message)" }
}

/// The outcome of validating one instance.
public struct ValidationResult: Sendable, Equatable {
    /// Errors and warnings, in document order.
    public var issues: [ValidationIssue]

    public init(issues: [ValidationIssue]) {
        self.issues = issues
    }

    public var errors: [ValidationIssue] { issues.filter { $0.severity == .error } }
    public var warnings: [ValidationIssue] { issues.filter { $0.severity == .warning } }
    /// True when there is no error (warnings allowed).
    public var isValid: Bool { !issues.contains { $0.severity == .error } }
}
