/// The neighbour's `HTTP` module: its name is all that matters here.
public enum NeighbourHTTP {
    /// The module's name.
    public static let name = "HTTP"
}
