#if SyncServer
/// Long-polls waiting for a user's registers to change. A write wakes its user's waiters; with
/// PostgreSQL, so does a notification from another instance; at shutdown, everyone is woken
/// so that every long-poll is answered.
///
/// Each user has a generation, moved on by every wake. A request reads it before reading its
/// cursor and waits only if it has not moved since, so a change between the two is not missed.
public actor ChangeWaiters {
    private var generations: [Int64: UInt64] = [:]
    private var waiting: [Int64: [UInt64: CheckedContinuation<Void, Never>]] = [:]
    private var nextId: UInt64 = 0
    private var closed = false

    public init() {}

    /// The user's generation now.
    public func generation(of user: Int64) -> UInt64 {
        generations[user] ?? 0
    }

    /// How many requests are waiting.
    public var count: Int {
        waiting.values.reduce(0) { $0 + $1.count }
    }

    /// Waits until the user's generation moves past `generation`, or `seconds` pass, or the
    /// server shuts down.
    public func wait(user: Int64, after generation: UInt64, seconds: Double) async {
        guard !closed, (generations[user] ?? 0) == generation, seconds > 0 else { return }
        nextId += 1
        let id = nextId
        let timer = Task { [weak self] in
            try? await Task.sleep(for: .seconds(seconds))
            await self?.resume(user: user, id: id)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiting[user, default: [:]][id] = continuation
            }
        } onCancel: {
            Task { [weak self] in await self?.resume(user: user, id: id) }
        }
        timer.cancel()
    }

    /// Wakes every request waiting on `user`.
    public func changed(user: Int64) {
        generations[user, default: 0] += 1
        for continuation in (waiting.removeValue(forKey: user) ?? [:]).values { continuation.resume() }
    }

    /// Wakes everyone, and lets no one wait again: the server is shutting down.
    public func close() {
        closed = true
        for continuations in waiting.values { for continuation in continuations.values { continuation.resume() } }
        waiting.removeAll()
    }

    private func resume(user: Int64, id: UInt64) {
        waiting[user]?.removeValue(forKey: id)?.resume()
    }
}
#endif
