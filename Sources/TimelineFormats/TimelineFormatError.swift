import ValueTree

/// A timeline or snapshot file that cannot be read, with the line of the problem.
public struct TimelineFormatError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public let location: SourceLocation?

    public init(_ message: String, at location: SourceLocation?) {
        self.message = message
        self.location = location
    }

    public var description: String {
        guard let location else { return message }
        return "\(location.line):\(location.column.map { "\($0):" } ?? "") \(message)"
    }
}
