import TimelineEngineConfiguration
import TimelineEnginePositionTracking
import TimelineEngineRestoration

/// What replay takes from the configuration: the tracker's settings, the resume policy, and
/// whether position persistence is on at all.
public struct ReplaySettings: Sendable, Equatable {
    public var tracker: PositionTracker.Settings
    public var policy: ResumePolicy
    /// `PositionPersistence.Enabled`: when false, lifecycle events are not tracked.
    public var persistenceEnabled: Bool
    /// The merge policy of multi-device sessions (`Sync.Policy`), or nil when
    /// `PositionPersistence.CrossSessionSync` is off: then `sync` deliveries change nothing.
    public var mergePolicy: ComponentSpec?
    /// Seconds a remote stamp may be ahead of a device's clock and still move it (`Sync.MaxClockOffset`).
    public var maxClockOffset: Double
    /// How a device of a version-3 session reaches a post its cache lacks (`Network.Reach`).
    public var reach: ComponentSpec

    public init(
        tracker: PositionTracker.Settings = .init(), policy: ResumePolicy = .init(), persistenceEnabled: Bool = true,
        mergePolicy: ComponentSpec? = nil, maxClockOffset: Double = SyncSettings().maxClockOffset, reach: ComponentSpec = NetworkSettings().reach
    ) {
        self.reach = reach
        self.tracker = tracker
        self.policy = policy
        self.persistenceEnabled = persistenceEnabled
        self.mergePolicy = mergePolicy
        self.maxClockOffset = maxClockOffset
    }

    public init(configuration: TimelineConfiguration) {
        self.init(
            tracker: PositionTracker.Settings(configuration: configuration), policy: ResumePolicy(configuration: configuration),
            persistenceEnabled: configuration.positionPersistence.enabled,
            mergePolicy: configuration.positionPersistence.crossSessionSync ? configuration.sync.policy : nil,
            maxClockOffset: configuration.sync.maxClockOffset,
            reach: configuration.network.reach)
    }
}
