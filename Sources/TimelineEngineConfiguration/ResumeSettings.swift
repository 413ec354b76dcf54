import TimelineEngineValueTree

/// `Resume`: soft and hard closes.
public struct ResumeSettings: ConfigurationSection {
    public static let name = "Resume"
    public static let title = "Resume policy"
    public static let help = "Soft and hard closes: whether to resume silently or ask."

    /// What a return after a hard close does: ask, restore silently when confident, or start at
    /// the top.
    public enum AfterHardClose: String, ParameterChoice {
        /// Offer "Continue reading?" and restore silently only at `SilentRestoreConfidence`.
        case suggest = "Suggest"
        /// Restore silently anyway.
        case restore = "Restore"
        /// Start at the top.
        case topOfTimeline = "TopOfTimeline"
    }

    /// Seconds in the background after which a return is a hard close.
    @Setting(
        "HardCloseThreshold", title: "Hard-close threshold", range: 0...315_360_000,
        help: "Seconds in the background after which a return counts as a hard close. A return without a clean background is always a hard close.")
    public var hardCloseThreshold: Double = 30

    @Setting(
        "AfterHardClose", title: "After a hard close",
        help:
            "Suggest offers \"Continue reading?\" with the candidates and restores silently only when confidence reaches SilentRestoreConfidence; Restore always restores silently; TopOfTimeline starts fresh."
    )
    public var afterHardClose: AfterHardClose = .suggest

    @Setting(
        "SilentRestoreConfidence", title: "Silent-restore confidence", range: 0...1,
        help: "After a hard close with Suggest, the confidence (0 to 1) at which the engine restores without asking.")
    public var silentRestoreConfidence: Double = 0.8

    public init() {}
}
