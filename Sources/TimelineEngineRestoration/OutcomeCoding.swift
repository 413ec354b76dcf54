import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineValueTree

extension Pipeline.Outcome {
    /// The outcome as one JSON object: the restoration's fields at the top level
    /// (`SnapshotCoding.value(of:)`) and, with `explained`, the pipeline in spec notation and
    /// every stage's verdict (`stage`, `depth`, `postId`, `confidence`, `verdict`,
    /// `explanation`). Nil when there is no restoration.
    public func value(pipeline: Pipeline, index: TimelineIndex, explained: Bool) -> Value? {
        guard let restoration else { return nil }
        let value = SnapshotCoding.value(of: restoration)
        guard explained, var members = value.dictionaryValue else { return value }
        members["pipeline"] = Value.Member(value: .string(pipeline.summary))
        members["trace"] = Value.Member(
            value: .array(
                trace.map { verdict in
                    .dictionary([
                        ("stage", .string(verdict.stage)), ("depth", .integer(verdict.depth)),
                        ("postId", verdict.candidate.map { .string(index.posts[$0.index].id) } ?? .null),
                        ("confidence", verdict.candidate.map { .real($0.confidence) } ?? .null),
                        ("verdict", .string(verdict.verdict)),
                        ("explanation", verdict.candidate.map { .string($0.explanation) } ?? .null),
                    ])
                }))
        return Value(.dictionary(members))
    }
}
