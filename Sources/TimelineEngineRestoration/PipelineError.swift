/// A pipeline that cannot be built: an unknown strategy, a bad parameter, a malformed spec.
public struct PipelineError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
