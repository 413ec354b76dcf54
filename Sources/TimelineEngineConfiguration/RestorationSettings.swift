import TimelineEngineValueTree

/// `Restoration`: how the restoration pipeline is composed.
public struct RestorationSettings: ConfigurationSection {
    public static let name = "Restoration"
    public static let title = "Restoration"
    public static let help = "How the restoration pipeline is composed."

    /// The stages as written, or nil when the configuration leaves the pipeline to follow
    /// `PositionPersistence`.
    @DerivedComponentListSetting(
        "Pipeline", title: "Pipeline", kind: "restoration",
        help:
            "The stages, tried in order. When absent, the pipeline follows PositionPersistence: ExactMatch, ContentSimilarity with Threshold 0.8 (a re-drafted post), NeighborAnchor, TemporalProximity, ContentSimilarity, then Fallback with FallbackStrategy; only ExactMatch and Fallback when SmartRestoration is false; TopOfTimeline when Enabled is false."
    )
    public var pipeline: [ComponentSpec]?

    /// The registered composition that combines the stages.
    @Setting(
        "Composition", title: "Composition",
        help:
            "How stages combine: FirstMatch takes the first candidate whose confidence reaches MinimumConfidence; BestConfidence runs every stage and takes the most confident; WeightedVote sums each stage's Weight per candidate."
    )
    public var composition: String = "FirstMatch"

    /// FirstMatch's `MinimumConfidence` where a stage does not set it; its type, range and
    /// default are that parameter's.
    @InheritedSetting(
        "MinimumConfidence", title: "Minimum confidence",
        help: "The confidence (0 to 1) a candidate needs for FirstMatch to accept it.")
    public var minimumConfidence: Double?

    /// Seconds in the background after which the live anchor expires.
    @Setting(
        "AnchorMaxAge", title: "Anchor maximum age", range: 0...315_360_000,
        help:
            "Seconds the app may stay in the background before the live scroll anchor expires and a return starts from the last saved snapshot. While the app stays in the foreground, the live anchor is the reader's place however long they rest on it."
    )
    public var anchorMaxAge: Double = 30

    @Setting(
        "AnchorVisibilityThreshold", title: "Anchor visibility threshold", above: 0, maximum: 1,
        help: "The visible fraction (above 0, at most 1) a post needs to be the anchor; the first such post from the top is chosen.")
    public var anchorVisibilityThreshold: Double = 0.3

    public init() {}
}
