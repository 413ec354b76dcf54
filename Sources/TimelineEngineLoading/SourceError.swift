import TimelineEngineReachModel

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

    public var description: String { "\(Self.shown(source)): error: \(message)" }

    /// The most UTF-8 bytes of a source shown whole in a message or a log line.
    public static let shownBytes = 512

    /// `source` as a message shows it: whole up to `shownBytes`, else its first 400 characters and
    /// how long it is (a server's cursor of 200 KB, percent-encoded in the URL of the next page,
    /// made one error line 600 KB).
    public static func shown(_ source: String) -> String {
        let bytes = source.utf8.count
        guard bytes > shownBytes else { return source }
        return "\(source.prefix(400))… (\(bytes) bytes)"
    }
}
