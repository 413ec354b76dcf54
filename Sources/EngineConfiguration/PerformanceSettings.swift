import ValueTree

/// `Performance`: rendering and memory tuning.
public struct PerformanceSettings: ConfigurationSection {
    public static let name = "Performance"
    public static let title = "Performance"
    public static let help = "Rendering and memory tuning."

    @Setting(
        "LazyLoadingEnabled", title: "Lazy loading",
        help: "Load posts as the reader approaches them instead of all at once.")
    public var lazyLoadingEnabled: Bool = true

    @Setting(
        "ScrollBufferSize", title: "Scroll buffer size", range: 0...1000,
        help: "Posts kept loaded beyond the visible ones, in each direction.")
    public var scrollBufferSize: Int = 20

    @Setting(
        "RenderAheadCount", title: "Render-ahead count", range: 0...100,
        help: "Posts laid out ahead of the scrolling direction.")
    public var renderAheadCount: Int = 5

    /// Fraction of the memory budget, 0 to 1.
    @Setting(
        "MemoryWarningThreshold", title: "Memory warning threshold", range: 0...1,
        help: "Fraction of the memory budget (0 to 1) at which caches shrink to their floors.")
    public var memoryWarningThreshold: Double = 0.8

    public init() {}
}
