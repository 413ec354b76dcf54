import TimelineEngineValueTree

/// Why a property list could not be read or written.
public struct PropertyListError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, without the position, e.g. `key "Enabled" has no value`.
    public let message: String
    /// Where it went wrong. Every problem found while parsing has a line; only problems with the
    /// input as a whole (unreadable, too large) have none.
    public let location: SourceLocation?

    /// True when the file could not be read at all (missing, a directory, a device, no
    /// permission), as opposed to read and found malformed or too large.
    public let isUnreadable: Bool

    /// Set by checking mode when it stopped at a duplicate key without the first one's line.
    let isDuplicateFoundWhileChecking: Bool

    public init(_ message: String, at location: SourceLocation?) {
        self.init(message, at: location, duplicateFoundWhileChecking: false)
    }

    /// A file that could not be read.
    init(unreadable error: FileData.ReadError) {
        self.init(error.description, at: nil, duplicateFoundWhileChecking: false, unreadable: true)
    }

    init(_ message: String, at location: SourceLocation?, duplicateFoundWhileChecking: Bool, unreadable: Bool = false) {
        self.message = message
        self.location = location
        self.isDuplicateFoundWhileChecking = duplicateFoundWhileChecking
        self.isUnreadable = unreadable
    }

    public static func == (lhs: PropertyListError, rhs: PropertyListError) -> Bool {
        lhs.message == rhs.message && lhs.location == rhs.location
    }

    /// `line N: message`, or the message alone when there is no line.
    public var description: String {
        guard let location else { return message }
        return "line \(location.line): \(message)"
    }
}
