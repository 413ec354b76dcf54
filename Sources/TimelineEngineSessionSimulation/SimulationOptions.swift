import TimelineEngineCore
import TimelineEnginePositionTracking
import TimelineEngineReachModel
import TimelineEngineSessionFormat

/// What `engine simulate` is asked for.
public struct SimulationOptions: Sendable {
    /// The feed order of the simulated sessions.
    public enum FeedMode: String, Sendable, CaseIterable {
        case chronological, algorithmic
        /// Each session is chronological or algorithmic, half and half.
        case mixed
    }

    /// Which way the simulated reader reads a newest-first feed.
    public enum Reading: String, Sendable, CaseIterable {
        /// Down from the top into older posts (the reading figures' newsletter readers).
        case down
        /// Up from where they stopped towards the newest posts (catching up, as read markers assume).
        case up

        /// The reading direction: where a reader whose post is gone goes next.
        public var direction: ReadingDirection { self == .up ? .newer : .older }
    }

    public var sessions: Int
    public var seed: UInt64
    public var feed: FeedMode
    /// The tracker settings the ground truth follows: the anchor's visibility threshold, and
    /// `AnchorMaxAge` to time pauses against.
    public var tracker: PositionTracker.Settings
    /// `Resume.HardCloseThreshold`, to time soft and hard relaunches against.
    public var hardCloseThreshold: Double
    /// Sessions on two devices, a phone and a laptop (format version 2), with the
    /// multi-device cases instead of the single-device ones.
    public var devices: Bool
    public var reading: Reading
    /// Sessions where each device keeps a cache of its own (format version 3, with `devices`):
    /// the laptop fetches head pages and must reach the reader's post across the gap.
    public var caches: Bool
    /// How the server of those sessions pages.
    public var api: SessionHeader.API
    /// How a Bluesky server's cursors work on chronological feeds (an algorithmic feed is a feed
    /// generator's, whose cursors are opaque).
    public var cursors: SessionHeader.Cursors
    /// With `devices`: one episode in four is a true divergence (`diverged`), two devices
    /// reading different parts of the timeline without hearing from each other.
    public var divergences: Bool

    public init(
        sessions: Int, seed: UInt64, feed: FeedMode = .mixed, tracker: PositionTracker.Settings = .init(),
        hardCloseThreshold: Double = ResumePolicy().hardCloseThreshold, devices: Bool = false, reading: Reading = .down, caches: Bool = false,
        api: SessionHeader.API = .mastodon, cursors: SessionHeader.Cursors = .timeKeyed, divergences: Bool = false
    ) {
        self.cursors = cursors
        self.divergences = divergences
        self.caches = caches
        self.api = api
        self.sessions = sessions
        self.seed = seed
        self.feed = feed
        self.tracker = tracker
        self.hardCloseThreshold = hardCloseThreshold
        self.devices = devices
        self.reading = reading
    }
}
