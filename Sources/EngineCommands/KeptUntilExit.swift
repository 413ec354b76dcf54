import Foundation

/// Large values a command has finished with, kept until the process exits.
///
/// A command's locals are freed one object at a time when `run()` returns, just before the
/// process exits and the system takes the memory back at once. For a timeline of a million
/// posts that freeing costs about a third of a second (`docs/PERFORMANCE.md`).
// @unchecked: `values` is appended to under `lock` only and never read.
final class KeptUntilExit: @unchecked Sendable {
    static let shared = KeptUntilExit()

    private let lock = NSLock()
    private var values: [Any] = []

    func keep(_ value: Any) {
        lock.lock()
        defer { lock.unlock() }
        values.append(value)
    }
}
