/// The neighbour's `TestSupport` module: its name is all that matters here.
public enum NeighbourTestSupport {
    /// The module's name.
    public static let name = "TestSupport"
}
