import Foundation
import TimelineEngineConfiguration
import TimelineEngineCore

/// What the resume policy needs to remember of the app's lifecycle: the last clean background
/// and the last return. `TimelineEngine` and session replay keep one each, so that both
/// classify closes the same way.
public struct ResumeState: Sendable, Equatable {
    /// The last `background` not followed by a `terminate`.
    public private(set) var lastCleanBackground: Date?
    /// The last `foreground` or `launch`.
    public private(set) var lastReturn: Date?

    public init() {}

    public mutating func observe(_ event: PositionTracker.Lifecycle, at date: Date) {
        switch event {
        case .background: lastCleanBackground = date
        case .terminate: lastCleanBackground = nil
        case .foreground, .launch: lastReturn = date
        }
    }

    /// How the app was closed before the return that a restore at `date` follows.
    public func close(under policy: ResumePolicy, at date: Date, hasHistory: Bool) -> ResumePolicy.Close {
        policy.classify(lastCleanBackground: lastCleanBackground, returnedAt: lastReturn ?? date, hasHistory: hasHistory)
    }
}

extension ResumePolicy {
    /// The restoration the reader gets after `close`: the pipeline's, or the top of the
    /// timeline when `AfterHardClose` is `TopOfTimeline` and the close was hard.
    public func apply(_ restoration: Restoration?, after close: Close, in index: TimelineIndex) -> Restoration? {
        guard close == .hard, afterHardClose == .topOfTimeline, index.count > 0 else { return restoration }
        return ResumePolicy.top(of: index, because: "a hard close starts at the top (Resume.AfterHardClose)")
    }

    /// Index 0 at offset 0, decided by the resume policy rather than a strategy.
    public static func top(of index: TimelineIndex, because explanation: String) -> Restoration {
        Restoration(
            postId: index.posts[0].id, index: 0, contentOffset: 0, viewportY: 0, method: .fallback, strategy: "Resume",
            confidence: 1, explanation: explanation)
    }
}

extension ResumePolicy {
    /// The policy the configuration's `Resume` section describes.
    public init(configuration: TimelineConfiguration) {
        self.init(
            hardCloseThreshold: configuration.resume.hardCloseThreshold,
            afterHardClose: configuration.resume.afterHardClose,
            silentRestoreConfidence: configuration.resume.silentRestoreConfidence)
    }
}

extension PositionTracker.Settings {
    /// The tracker settings the configuration describes (`PositionPersistence` and `Restoration`).
    public init(configuration: TimelineConfiguration) {
        self.init(
            autoSaveInterval: configuration.positionPersistence.autoSaveInterval,
            settleDelay: configuration.positionPersistence.autoSaveSettleDelay,
            maxHistorySize: configuration.positionPersistence.maxHistorySize,
            anchorVisibilityThreshold: configuration.restoration.anchorVisibilityThreshold,
            anchorMaxAge: configuration.restoration.anchorMaxAge)
    }
}
