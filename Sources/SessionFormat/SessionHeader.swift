import Foundation

/// The first line of a recorded session: who recorded it, on what, and when.
///
/// `{"type":"session","version":1,"id":S,"device":S,"account":S?,"timeline":S,
/// "feed":"chronological"|"algorithmic","viewport":{"width":N,"height":N},"startedAt":T,
/// "clockSkew":{device:N}?}`
public struct SessionHeader: Sendable, Equatable {
    /// The format version of a session recorded on one device.
    public static let currentVersion = 1
    /// The format version of a session whose events name devices and carry sync deliveries:
    /// a version-1 reader would apply other devices' scrolls to the one it knows, so it must not
    /// read them.
    public static let multiDeviceVersion = 2
    /// The largest `clockSkew` the format accepts, in seconds: a year.
    public static let maximumClockSkew = 31_536_000.0
    /// The versions this library reads.
    public static let supportedVersions = [1, 2]

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

    public init(id: String, device: String, account: String? = nil, timeline: String, feed: Feed = .chronological,
                viewport: Viewport, startedAt: Date, version: Int = SessionHeader.currentVersion, clockSkew: [String: Double] = [:]) {
        self.version = version
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
