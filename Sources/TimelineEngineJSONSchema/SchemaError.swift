import TimelineEngineValueTree

/// A schema that cannot be used: a keyword with a value of the wrong shape, a pattern that does
/// not compile, a `$ref` that resolves to nothing.
public struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The JSON Pointer of the faulty keyword inside the schema.
    public let schemaPath: String
    public let message: String
    /// Where the keyword was written, when the schema came from a file.
    public let location: SourceLocation?

    public init(schemaPath: String, message: String, location: SourceLocation?) {
        self.schemaPath = schemaPath
        self.message = message
        self.location = location
    }

    public var description: String {
        "schema\(schemaPath.isEmpty ? "" : " at \(schemaPath)"): \(message)"
    }
}
