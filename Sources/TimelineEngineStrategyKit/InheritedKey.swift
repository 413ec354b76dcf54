/// The configuration key a strategy parameter inherits (`Restoration.MinimumConfidence`): a
/// stage that does not set the parameter takes the key's value, and the key takes its type,
/// allowed values and default from the parameter. A strategy names it through the key's
/// declaration (`RestorationSettings.inheritedKey(\.$minimumConfidence)`), so a rename of either
/// fails to compile.
public struct InheritedKey: Sendable, Hashable, CustomStringConvertible {
    /// The section's name (`Restoration`).
    public let section: String
    /// The key's name in its section (`MinimumConfidence`).
    public let key: String

    public init(section: String, key: String) {
        self.section = section
        self.key = key
    }

    /// As messages and help write it: `Restoration.MinimumConfidence`.
    public var description: String { "\(section).\(key)" }
}
