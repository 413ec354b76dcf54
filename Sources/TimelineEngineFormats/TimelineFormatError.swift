import TimelineEngineJSONText
import TimelineEngineValueTree

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

extension TimelineFormatError {
    /// Runs `body`, which scans JSON, and reports what it throws as a `TimelineFormatError`: a
    /// syntax error at its own place, any other error at `fallback`.
    static func scanning<T>(fallback: SourceLocation? = nil, _ body: () throws -> T) throws(TimelineFormatError) -> T {
        do {
            return try body()
        } catch let error as TimelineFormatError {
            throw error
        } catch let error as JSONSyntaxError {
            throw TimelineFormatError(error.message, at: error.location)
        } catch {
            throw TimelineFormatError("\(error)", at: fallback)
        }
    }
}
