import ReachModel

/// A refresh that did not produce a timeline, named by its source: `SOURCE: error: …`.
public struct SourceError: Error, Sendable, Equatable, CustomStringConvertible {
    public let source: String
    public let message: String
    /// The failure as the network policy saw it, for HTTP sources.
    public let failure: FetchFailure?

    public init(source: String, _ message: String, failure: FetchFailure? = nil) {
        self.source = source
        self.message = message
        self.failure = failure
    }

    /// True when the source could not be reached at all (timeout, connection), as opposed to
    /// answering with something unusable.
    public var isUnreachable: Bool {
        switch failure {
        case .timeout?, .connection?: true
        default: false
        }
    }

    public var description: String { "\(source): error: \(message)" }
}
