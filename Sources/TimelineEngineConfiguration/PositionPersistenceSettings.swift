import TimelineEngineValueTree

/// `PositionPersistence`: saving the reader's place and putting them back on it.
public struct PositionPersistenceSettings: ConfigurationSection {
    public static let name = "PositionPersistence"
    public static let title = "Position persistence"
    public static let help = "Saving the reader's place and putting them back on it."

    @Setting(
        "Enabled", title: "Position persistence",
        help: "Save and restore the reader's position. When false, every restore goes to the top of the timeline.")
    public var enabled: Bool = true

    @Setting(
        "SmartRestoration", title: "Smart restoration",
        help: "Look for a stand-in when the saved post is gone (neighbours, time, text). When false, an exact match is tried and then the fallback.")
    public var smartRestoration: Bool = true

    @Setting(
        "MaxHistorySize", title: "History size", range: 1...1000,
        help: "How many position snapshots to keep, newest first; older ones are evicted.")
    public var maxHistorySize: Int = 10

    /// Seconds between automatic saves while scrolling.
    @Setting(
        "AutoSaveInterval", title: "Auto-save interval", range: 0...3600,
        help:
            "Seconds that must pass between two automatic saves while the reader scrolls. A save also happens whenever the app goes to the background."
    )
    public var autoSaveInterval: Double = 5

    /// Seconds scrolling must rest before the last position is saved.
    @Setting(
        "AutoSaveSettleDelay", title: "Auto-save settle delay", range: 0...3600,
        help:
            "Seconds scrolling must rest before the last position is saved, so that the place the reader stopped at is never lost to the interval above. 0 saves at the next event after the scroll."
    )
    public var autoSaveSettleDelay: Double = 1

    @Setting(
        "CrossSessionSync", title: "Cross-session sync",
        help: "Share the reading position with the reader's other devices and later sessions.")
    public var crossSessionSync: Bool = true

    @Setting(
        "iCloudSyncEnabled", title: "iCloud sync",
        help: "On Apple platforms, carry the position through iCloud. Ignored elsewhere; the Sync section chooses the transport on every platform.")
    public var iCloudSyncEnabled: Bool = true

    /// Fallback's `Mode` where a stage does not set it; its allowed values and default are
    /// that parameter's.
    @InheritedSetting(
        "FallbackStrategy", title: "Fallback strategy",
        help:
            "Where to go when nothing better is found: NearestContent (the post at the same relative position), TopOfTimeline, LastKnownPosition (the saved scroll offset), NewestPost or OldestPost (by creation time)."
    )
    public var fallbackStrategy: String?

    @Setting(
        "MaxUnreadHistory", title: "Read-post history (deprecated)", range: 0...1_000_000, deprecated: true,
        help: "The seed app's bound on remembered read posts. Use TimelineCache.MaxReadPosts instead.")
    public var maxUnreadHistory: Int = 1000

    public init() {}
}
