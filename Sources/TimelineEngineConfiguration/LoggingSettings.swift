import TimelineEngineValueTree

/// `Logging`: where log records go.
public struct LoggingSettings: ConfigurationSection {
    public static let name = "Logging"
    public static let title = "Logging"
    public static let help = "Where log records go. The Debug section sets the levels."

    @ComponentListSetting(
        "Sinks", title: "Sinks", definition: "sink", nameKey: "Sink",
        help: "Every destination that receives log records.")
    public var sinks = [ComponentSpec(name: "Stderr")]

    public init() {}

    /// These sinks, and every other key at its default.
    public init(sinks: [ComponentSpec]) {
        self.init()
        self.sinks = sinks
    }
}
