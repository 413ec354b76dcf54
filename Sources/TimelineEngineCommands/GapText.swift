import TimelineEngineKit

/// How the commands that show a cached timeline write its gaps as text (the JSON is
/// `TimelineGap.jsonValue`).
enum GapText {
    /// `gaps: 2 (961 | 800, 760 | 600)`, or nil when there are none.
    static func line(_ gaps: [TimelineGap]) -> String? {
        gaps.isEmpty ? nil : "gaps: \(gaps.count) (\(gaps.map { "\($0.above) | \($0.below)" }.joined(separator: ", ")))"
    }

}
