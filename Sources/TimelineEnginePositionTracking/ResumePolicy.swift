import Foundation
import TimelineEngineConfiguration

/// Soft close or hard close, from the onboarding seed: a **soft close** is a clean background
/// followed by a return within `hardCloseThreshold` seconds; a **hard close** is a return
/// without a clean background (the app was terminated) or after a longer gap. A fresh install
/// has no history.
public struct ResumePolicy: Sendable, Equatable {
    /// How the app was closed before a return.
    public enum Close: String, Sendable, Equatable {
        case soft, hard
        case freshInstall = "fresh-install"
    }

    /// What to do after a hard close (`Resume.AfterHardClose`).
    public typealias AfterHardClose = ResumeSettings.AfterHardClose

    public var hardCloseThreshold: Double
    public var afterHardClose: AfterHardClose
    public var silentRestoreConfidence: Double

    /// A policy with these values; the others at their configuration keys' defaults.
    public init(
        hardCloseThreshold: Double = ResumeSettings().hardCloseThreshold,
        afterHardClose: AfterHardClose = ResumeSettings().afterHardClose,
        silentRestoreConfidence: Double = ResumeSettings().silentRestoreConfidence
    ) {
        self.hardCloseThreshold = hardCloseThreshold
        self.afterHardClose = afterHardClose
        self.silentRestoreConfidence = silentRestoreConfidence
    }

    /// How the app was closed, given the time of its last clean background (nil when it was not
    /// backgrounded cleanly before this return) and whether any position was ever saved.
    public func classify(lastCleanBackground: Date?, returnedAt: Date, hasHistory: Bool) -> Close {
        guard hasHistory else { return .freshInstall }
        guard let lastCleanBackground else { return .hard }
        return returnedAt.timeIntervalSince(lastCleanBackground) <= hardCloseThreshold ? .soft : .hard
    }

    /// Whether to restore without asking, after `close`, at this confidence.
    public func restoresSilently(after close: Close, confidence: Double) -> Bool {
        switch close {
        case .soft: return true
        case .freshInstall: return false
        case .hard:
            switch afterHardClose {
            case .restore: return true
            case .topOfTimeline: return false
            case .suggest: return confidence >= silentRestoreConfidence
            }
        }
    }
}
