import TimelineEngineValueTree

/// `Performance`: memory tuning (and three keys of the seed app's rendering, read by nothing).
public struct PerformanceSettings: ConfigurationSection {
    public static let name = "Performance"
    public static let title = "Performance"
    public static let help = "Memory tuning."

    /// Read by nothing: the engine lays out no views. Kept so that older files stay valid.
    @Setting(
        "LazyLoadingEnabled", title: "Lazy loading (deprecated)", deprecated: true,
        help:
            "Read by nothing: the engine lays out no views, and an app's own list decides what it loads. Accepted so that older files stay valid; remove it."
    )
    public var lazyLoadingEnabled: Bool = true

    /// Read by nothing: the engine lays out no views. Kept so that older files stay valid.
    @Setting(
        "ScrollBufferSize", title: "Scroll buffer size (deprecated)", range: 0...1000, deprecated: true,
        help:
            "Read by nothing: the engine lays out no views, and an app's own list decides how many posts it keeps loaded. Accepted so that older files stay valid; remove it."
    )
    public var scrollBufferSize: Int = 20

    /// Read by nothing: the engine lays out no views. Kept so that older files stay valid.
    @Setting(
        "RenderAheadCount", title: "Render-ahead count (deprecated)", range: 0...100, deprecated: true,
        help:
            "Read by nothing: the engine lays out no views, and an app's own list decides what it renders ahead. Accepted so that older files stay valid; remove it."
    )
    public var renderAheadCount: Int = 5

    /// Fraction of the memory budget, 0 to 1.
    @Setting(
        "MemoryWarningThreshold", title: "Memory warning threshold", range: 0...1,
        help: "Fraction of the memory budget (0 to 1) at which caches shrink to their floors.")
    public var memoryWarningThreshold: Double = 0.8

    public init() {}
}
