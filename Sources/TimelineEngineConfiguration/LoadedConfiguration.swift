import TimelineEngineValueTree

/// What loading a configuration produced: the effective configuration and every diagnostic.
public struct LoadedConfiguration: Sendable {
    /// The effective configuration. Invalid values have fallen back to their defaults.
    public var configuration: TimelineConfiguration
    /// Errors and warnings, in file order.
    public var diagnostics: [ConfigurationDiagnostic]
    /// The configuration dictionary as written (for an Info.plist, the value of its
    /// `SocialFusionTimelineConfiguration` key), or nil when the file could not be read.
    public var document: Value?
    /// The configuration with invalid values removed and every default filled in.
    public var resolved: Value
    /// The notation the file was read as.
    public var format: ConfigurationFormat?

    public var errors: [ConfigurationDiagnostic] { diagnostics.filter { $0.severity == .error } }
    public var warnings: [ConfigurationDiagnostic] { diagnostics.filter { $0.severity == .warning } }
    public var isValid: Bool { errors.isEmpty }
}

/// Thrown by a strict `ConfigurationLoader` when a configuration has errors.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public let diagnostics: [ConfigurationDiagnostic]

    public init(diagnostics: [ConfigurationDiagnostic]) {
        self.diagnostics = diagnostics
    }

    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
