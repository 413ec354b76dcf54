import Foundation
import TimelineEngineReachModel

/// The first line of a recorded session: who recorded it, on what, and when.
///
/// `{"type":"session","version":1,"id":S,"device":S,"account":S?,"timeline":S,
/// "feed":"chronological"|"algorithmic","viewport":{"width":N,"height":N},"startedAt":T,
/// "clockSkew":{device:N}?,"api":"mastodon"|"bluesky"?,"cursors":"time-keyed"|"opaque"|"issued-only"?}`
public struct SessionHeader: Sendable, Equatable {
    /// The format version of a session recorded on one device.
    public static let currentVersion = 1
    /// The format version of a session whose events name devices and carry sync deliveries:
    /// a version-1 reader would apply other devices' scrolls to the one it knows, so it must not
    /// read them.
    public static let multiDeviceVersion = 2
    /// The format version of a session where devices keep caches of their own: the events
    /// before describe the server's timeline, and a `fetch` loads a device's head page from it.
    /// A version-2 reader would restore on the server's timeline, where every post is loaded.
    public static let cachesVersion = 3
    /// The largest `clockSkew` the format accepts, in seconds: a year.
    public static let maximumClockSkew = 31_536_000.0
    /// The versions this library reads.
    public static let supportedVersions = [1, 2, 3]

    /// The API shape of the server a version-3 session's devices fetch from: how it pages.
    public enum API: String, Sendable, CaseIterable, Equatable {
        /// Pages by post id (`max_id`, `min_id`, `statuses/:id`).
        case mastodon
        /// Pages only from the top, by cursor.
        case bluesky
    }

    /// How a Bluesky-shaped server of a version-3 session makes and takes cursors: the simulated
    /// server's own setting, written under its raw values (`time-keyed`, `opaque`, `issued-only`).
    public typealias Cursors = FeedCursors

    /// How the feed orders its posts.
    public enum Feed: String, Sendable, CaseIterable, Equatable {
        case chronological, algorithmic
    }

    /// The visible area, in points.
    public struct Viewport: Sendable, Equatable {
        public var width: Double
        public var height: Double

        public init(width: Double, height: Double) {
            self.width = width
            self.height = height
        }
    }

    public var version: Int
    public var id: String
    public var device: String
    public var account: String?
    /// The timeline's name in the app, e.g. `home`.
    public var timeline: String
    public var feed: Feed
    public var viewport: Viewport
    public var startedAt: Date
    /// How far each device's clock is ahead of true time, in seconds (negative: behind), for the
    /// devices whose clock is wrong (version 2). Event times are true times; a device stamps its
    /// writes with its own clock.
    public var clockSkew: [String: Double]
    /// How the server of a version-3 session pages (Mastodon when not given).
    public var api: API
    /// How a Bluesky-shaped server's cursors work (time-keyed when not given).
    public var cursors: Cursors

    public init(
        id: String, device: String, account: String? = nil, timeline: String, feed: Feed = .chronological,
        viewport: Viewport, startedAt: Date, version: Int = SessionHeader.currentVersion, clockSkew: [String: Double] = [:],
        api: API = .mastodon, cursors: Cursors = .timeKeyed
    ) {
        self.version = version
        self.api = api
        self.cursors = cursors
        self.clockSkew = clockSkew
        self.id = id
        self.device = device
        self.account = account
        self.timeline = timeline
        self.feed = feed
        self.viewport = viewport
        self.startedAt = startedAt
    }
}
