import Dispatch
import TimelineEngineCore

extension TimelineIndex {
    /// The index of `timeline` with `textIndex`, a word index over its posts' texts in display
    /// order (mapped from a store, say), used instead of building one; one of another number of
    /// posts is ignored.
    public convenience init(_ timeline: Timeline, textIndex: TextIndex?, lookups: TimelineLookups? = nil) {
        self.init(timeline, lookups: lookups)
        if let textIndex, textIndex.textCount == timeline.posts.count {
            _ = attachment(BuiltTextIndex.key) { BuiltTextIndex(index: textIndex, nanoseconds: 0) }
        }
    }

    /// The word index over the posts' texts, built on first use.
    public var textIndex: TextIndex {
        attachment(BuiltTextIndex.key) {
            let started = DispatchTime.now().uptimeNanoseconds
            let index = TextIndex(posts.map { $0.text ?? "" })
            return BuiltTextIndex(index: index, nanoseconds: DispatchTime.now().uptimeNanoseconds &- started)
        }.index
    }

    /// How long building the text index took, once it is built (0 when it was given); nil
    /// before. Lets a caller that times a restoration leave out this one-time cost.
    public var textIndexBuildNanoseconds: UInt64? {
        existingAttachment(BuiltTextIndex.key, as: BuiltTextIndex.self)?.nanoseconds
    }
}

/// A text index attached to its timeline index, and how long building it took.
private struct BuiltTextIndex: Sendable {
    static let key = ObjectIdentifier(BuiltTextIndex.self)
    let index: TextIndex
    let nanoseconds: UInt64
}
