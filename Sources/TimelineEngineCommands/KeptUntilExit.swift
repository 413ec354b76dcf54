import Foundation
import TimelineEngineKit

/// Large values a command has finished with, kept until the process exits.
///
/// A command's locals are freed one object at a time when `run()` returns, just before the
/// process exits and the system takes the memory back at once. For a timeline of a million
/// posts that freeing costs about a third of a second (the history of `docs/PERFORMANCE.md`).
final class KeptUntilExit: Sendable {
    static let shared = KeptUntilExit()

    /// Appended to, never read.
    private let values = Locked<[Any]>([])

    func keep(_ value: Any) {
        values.withLock { $0.append(value) }
    }
}
