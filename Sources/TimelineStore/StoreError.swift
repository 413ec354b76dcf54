/// Why a store cannot be used, naming the file: `PATH: error: …`. The file itself is never
/// overwritten or deleted because of it.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): error: \(message)" }
}
