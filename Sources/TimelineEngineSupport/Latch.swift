/// A signal given once: `open()` from any thread, and every `wait()` (before or after) returns.
/// A service's `run()` waits on one for its `shutdown()`.
public final class Latch: Sendable {
    private struct State {
        var opened = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    public init() {}

    /// Whether `open()` was called.
    public var isOpen: Bool { state.withLock { $0.opened } }

    /// Opens the latch: every waiter returns, and so does every later wait.
    public func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.opened = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the latch is open; cancelling the task opens it.
    public func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let opened = state.withLock { state in
                    if !state.opened { state.waiters.append(continuation) }
                    return state.opened
                }
                if opened { continuation.resume() }
            }
        } onCancel: {
            open()
        }
    }
}
