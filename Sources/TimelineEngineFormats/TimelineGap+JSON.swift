import TimelineEngineCore
import TimelineEngineValueTree

extension TimelineGap {
    /// Gaps as the commands' JSON writes them: `[{"above": …, "below": …}, …]`.
    public static func jsonValue(_ gaps: [TimelineGap]) -> Value {
        .array(gaps.map { .dictionary([("above", .string($0.above)), ("below", .string($0.below))]) })
    }
}
