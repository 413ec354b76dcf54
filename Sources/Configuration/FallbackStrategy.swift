/// Where the reader goes when no better position is found (`PositionPersistence.FallbackStrategy`).
public enum FallbackStrategy: String, CaseIterable, Sendable {
    /// The post at the same relative position as the saved one.
    case nearestContent = "NearestContent"
    /// The top of the timeline.
    case topOfTimeline = "TopOfTimeline"
    /// The saved scroll offset, clamped.
    case lastKnownPosition = "LastKnownPosition"
    /// The post with the latest creation time (not the top of an algorithmic feed).
    case newestPost = "NewestPost"
    /// The post with the earliest creation time.
    case oldestPost = "OldestPost"
}
