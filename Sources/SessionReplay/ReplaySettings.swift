import Configuration
import PositionTracking

/// What replay takes from the configuration: the tracker's settings, the resume policy, and
/// whether position persistence is on at all.
public struct ReplaySettings: Sendable, Equatable {
    public var tracker: PositionTracker.Settings
    public var policy: ResumePolicy
    /// `PositionPersistence.Enabled`: when false, lifecycle events are not tracked.
    public var persistenceEnabled: Bool

    public init(tracker: PositionTracker.Settings = .init(), policy: ResumePolicy = .init(), persistenceEnabled: Bool = true) {
        self.tracker = tracker
        self.policy = policy
        self.persistenceEnabled = persistenceEnabled
    }

    public init(configuration: TimelineConfiguration) {
        self.init(tracker: PositionTracker.Settings(configuration: configuration), policy: ResumePolicy(configuration: configuration),
                  persistenceEnabled: configuration.positionPersistence.enabled)
    }
}
