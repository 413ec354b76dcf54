#if SyncServer
/// Long-polls waiting for a user's registers to change, and what the server knows of each
/// user's change counter. A write wakes its user's waiters; with PostgreSQL, so does a
/// notification from another instance; at shutdown, everyone is woken so that every long-poll
/// is answered.
///
/// Each user has a generation, moved on by every wake. A request reads it before reading the
/// cursor and waits only if it has not moved since, so a change between the two is not missed.
///
/// A long-poll needs the user's cursor before it waits. The last one read or written is kept
/// (`snapshot(of:)`), so that a long-poll re-armed after its answer does not ask the database
/// again. What is kept is never below the counter of any change this process has heard of:
/// every wake raises it, and a cursor read from the database is kept only if no wake came
/// between the generation read before the query and the query's answer. A change committed but
/// not yet heard of moves the generation when it is, which wakes whoever waits on the kept
/// cursor. While other instances cannot be heard (PostgreSQL's listener is reconnecting), their
/// changes would not be, so nothing is kept, and everyone is woken when they can be heard again.
///
/// A write of this instance wakes its user's long-polls with the records it stored
/// (`Change`): a long-poll whose cursor is the one just before the write's is answered with
/// them, without reading the database again.
public actor ChangeWaiters {
    /// A change a long-poll was woken by: the counter it made, and the records stored with that
    /// counter, which are every head changed after the counter before it.
    public struct Change: Sendable, Equatable {
        public let cursor: Int64
        public let records: [String]

        public init(cursor: Int64, records: [String]) {
            self.cursor = cursor
            self.records = records
        }
    }

    private var users: [Int64: UserState] = [:]
    /// Moved on by every wake of everyone, and part of every user's generation.
    private var epoch: UInt64 = 0
    private var waiting: [Int64: [UInt64: CheckedContinuation<Change?, Never>]] = [:]
    private var nextId: UInt64 = 0
    private var closed = false
    /// Whether every change is heard of, so that cursors may be kept.
    private var hearsEveryChange: Bool

    /// A user's wakes and counters.
    private struct UserState {
        /// Wakes of this user.
        var wakes: UInt64 = 0
        /// The highest counter a wake carried: a change at or below it was heard of already.
        var heard: Int64?
        /// The counter as the server knows it, at least `heard`; nil when unknown.
        var cursor: Int64?
    }

    /// Waiters for a server whose storage tells every change (`hearsEveryChange`), or one that
    /// hears other instances only once its listener says so (`listening()`).
    public init(hearsEveryChange: Bool = true) {
        self.hearsEveryChange = hearsEveryChange
    }

    /// The user's generation now.
    public func generation(of user: Int64) -> UInt64 {
        epoch &+ (users[user]?.wakes ?? 0)
    }

    /// The user's generation, and their cursor if the server knows it.
    public func snapshot(of user: Int64) -> (generation: UInt64, cursor: Int64?) {
        (generation(of: user), users[user]?.cursor)
    }

    /// Keeps a cursor read from the database, if the user's generation is still the one read
    /// before the query: then every change heard of so far was committed before it.
    public func remember(cursor: Int64, of user: Int64, readAt generation: UInt64) {
        guard hearsEveryChange, self.generation(of: user) == generation else { return }
        let known = users[user]?.cursor ?? cursor
        users[user, default: UserState()].cursor = max(known, cursor)
    }

    /// How many requests are waiting.
    public var count: Int {
        waiting.values.reduce(0) { $0 + $1.count }
    }

    /// Waits until the user's generation moves past `generation`, or `seconds` pass, or the
    /// server shuts down. Returns the change that woke it when that change carried its records.
    @discardableResult
    public func wait(user: Int64, after generation: UInt64, seconds: Double) async -> Change? {
        guard !closed, self.generation(of: user) == generation, seconds > 0 else { return nil }
        nextId += 1
        let id = nextId
        let timer = Task { [weak self] in
            try? await Task.sleep(for: .seconds(seconds))
            await self?.resume(user: user, id: id)
        }
        let change = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiting[user, default: [:]][id] = continuation
            }
        } onCancel: {
            Task { [weak self] in await self?.resume(user: user, id: id) }
        }
        timer.cancel()
        return change
    }

    /// The user's registers changed, and their counter is now `cursor` (nil when the change
    /// does not say, as a notification from an earlier release): wakes every request waiting
    /// on `user`, with `records` when they are every record stored with that counter. A change
    /// whose counter was heard of already (this instance's own write, then its notification)
    /// wakes no one again.
    public func changed(user: Int64, cursor: Int64? = nil, records: [String]? = nil) {
        var state = users[user] ?? UserState()
        if let cursor, let heard = state.heard, cursor <= heard { return }
        state.wakes += 1
        if let cursor {
            state.heard = max(state.heard ?? cursor, cursor)
            state.cursor = state.cursor.map { max($0, cursor) }
        } else {
            state.cursor = nil
        }
        users[user] = state
        let change = cursor.flatMap { cursor in records.map { Change(cursor: cursor, records: $0) } }
        for continuation in (waiting.removeValue(forKey: user) ?? [:]).values { continuation.resume(returning: change) }
    }

    /// Whether every change is heard of: always for a storage that tells every change; for one
    /// that other instances write too, once its listener listens.
    public var hearsEveryChangeNow: Bool { hearsEveryChange }

    /// Other instances' changes cannot be heard until `listening()`: keeps no cursor until then.
    public func interrupted() {
        hearsEveryChange = false
        forgetCursors()
    }

    /// Other instances' changes are heard from now on; those made before may not have been, so
    /// everyone waiting is woken to look again.
    public func listening() {
        forgetCursors()
        hearsEveryChange = true
        epoch &+= 1
        resumeAll()
    }

    /// Wakes everyone, and lets no one wait again: the server is shutting down.
    public func close() {
        closed = true
        resumeAll()
    }

    private func forgetCursors() {
        for user in users.keys { users[user]?.cursor = nil }
    }

    private func resumeAll() {
        for continuations in waiting.values { for continuation in continuations.values { continuation.resume(returning: nil) } }
        waiting.removeAll()
    }

    private func resume(user: Int64, id: UInt64) {
        waiting[user]?.removeValue(forKey: id)?.resume(returning: nil)
    }
}
#endif
