/// The neighbour's `ValueTree` module: its name is all that matters here.
public enum NeighbourValueTree {
    /// The module's name.
    public static let name = "ValueTree"
}
