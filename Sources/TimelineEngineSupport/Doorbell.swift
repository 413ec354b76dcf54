/// A bell that many can ring and one task waits on: rings while nobody waits are kept as one,
/// so a burst of notifications wakes the waiter once. A change stream waits on it for the next
/// file-system notification or poll tick.
public actor Doorbell {
    private var rung = false
    private var waiter: CheckedContinuation<Void, Never>?

    public init() {}

    /// Wakes the waiter, or the next one to wait.
    public func ring() {
        if let waiter {
            self.waiter = nil
            waiter.resume()
        } else {
            rung = true
        }
    }

    /// Returns once the bell has rung since the last wait, or the task is cancelled.
    public func wait() async {
        if rung || Task.isCancelled {
            rung = false
            return
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if rung || Task.isCancelled {
                    rung = false
                    continuation.resume()
                } else {
                    waiter = continuation
                }
            }
        } onCancel: {
            Task { await self.ring() }
        }
        rung = false
    }
}
