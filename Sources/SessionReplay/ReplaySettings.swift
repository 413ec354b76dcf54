import EngineConfiguration
import PositionTracking

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

    public init(tracker: PositionTracker.Settings = .init(), policy: ResumePolicy = .init(), persistenceEnabled: Bool = true,
                mergePolicy: ComponentSpec? = nil) {
        self.tracker = tracker
        self.policy = policy
        self.persistenceEnabled = persistenceEnabled
        self.mergePolicy = mergePolicy
    }

    public init(configuration: TimelineConfiguration) {
        self.init(tracker: PositionTracker.Settings(configuration: configuration), policy: ResumePolicy(configuration: configuration),
                  persistenceEnabled: configuration.positionPersistence.enabled,
                  mergePolicy: configuration.positionPersistence.crossSessionSync ? configuration.sync.policy : nil)
    }
}
