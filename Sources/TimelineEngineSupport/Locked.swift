import Foundation

/// A value behind a lock, for state shared across threads in short critical sections that
/// never suspend: the package's one lock type (`Mutex` from the Synchronization module needs
/// macOS 15 and iOS 18). Inlinable, so that a hot path (a timeline index's lookups) pays for the
/// lock and nothing more.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched inside `withLock`, under `lock`.
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    @inlinable
    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, exclusively.
    @inlinable
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
