/// Why a store cannot be used, naming the file: `PATH: error: …`. The file itself is never
/// overwritten or deleted because of it.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is, for callers that act on it (the command line maps kinds to
    /// exit codes).
    public enum Kind: String, Sendable, Equatable {
        /// There is no store at the path, and it was not to be created.
        case missing
        /// The path cannot hold a store: its directory is missing or not writable, it is a
        /// directory, or the file cannot be read.
        case unusablePath
        /// The file is not a TimelineEngine store: not SQLite, or another application's database.
        case notAStore
        /// The store is damaged, or written by a newer version.
        case incompatible
        /// The store could not be read or written: a full disk, a lock held too long, an I/O error.
        case failed
    }

    public var path: String
    public var message: String
    public var kind: Kind

    public init(path: String, _ message: String, kind: Kind = .failed) {
        self.path = path
        self.message = message
        self.kind = kind
    }

    public var description: String { "\(path): error: \(message)" }

    /// What a write that found no space says.
    static let diskFull = "the disk is full: nothing was written (free some space on the disk that holds the store)"

    /// True when a write failed for want of space.
    public var isDiskFull: Bool { message == Self.diskFull }
}
