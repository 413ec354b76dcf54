/// The neighbour's `JSONSchema` module: its name is all that matters here.
public enum NeighbourJSONSchema {
    /// The module's name.
    public static let name = "JSONSchema"
}
