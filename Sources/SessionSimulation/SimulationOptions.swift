import PositionTracking

/// What `engine simulate` is asked for.
public struct SimulationOptions: Sendable {
    /// The feed order of the simulated sessions.
    public enum FeedMode: String, Sendable, CaseIterable {
        case chronological, algorithmic
        /// Each session is chronological or algorithmic, half and half.
        case mixed
    }

    public var sessions: Int
    public var seed: UInt64
    public var feed: FeedMode
    /// The tracker settings the ground truth follows: the anchor's visibility threshold, and
    /// `AnchorMaxAge` to time pauses against.
    public var tracker: PositionTracker.Settings
    /// `Resume.HardCloseThreshold`, to time soft and hard relaunches against.
    public var hardCloseThreshold: Double

    public init(sessions: Int, seed: UInt64, feed: FeedMode = .mixed, tracker: PositionTracker.Settings = .init(),
                hardCloseThreshold: Double = 30) {
        self.sessions = sessions
        self.seed = seed
        self.feed = feed
        self.tracker = tracker
        self.hardCloseThreshold = hardCloseThreshold
    }
}
