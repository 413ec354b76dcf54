import TimelineEngineValueTree

/// Malformed JSON, with the position of the problem.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `expected ',' or '}' after a member, found '"'`.
    public let message: String
    /// Where the problem was found.
    public let location: SourceLocation

    public init(_ message: String, at location: SourceLocation) {
        self.message = message
        self.location = location
    }

    /// `LINE:COLUMN: message`.
    public var description: String { "\(location): \(message)" }
}
