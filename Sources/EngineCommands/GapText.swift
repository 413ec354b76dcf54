import TimelineEngine

/// How the commands that show a cached timeline write its gaps: one line of text, and the
/// JSON array.
enum GapText {
    /// `gaps: 2 (961 | 800, 760 | 600)`, or nil when there are none.
    static func line(_ gaps: [TimelineGap]) -> String? {
        gaps.isEmpty ? nil : "gaps: \(gaps.count) (\(gaps.map { "\($0.above) | \($0.below)" }.joined(separator: ", ")))"
    }

    /// `[{"above": …, "below": …}, …]`.
    static func value(_ gaps: [TimelineGap]) -> Value {
        .array(gaps.map { .dictionary([("above", .string($0.above)), ("below", .string($0.below))]) })
    }
}
