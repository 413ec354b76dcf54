#if SyncServer
import TimelineEngineSupport
import Foundation

/// The users of the tokens the server found lately, so that a request does not read the token
/// table each time.
///
/// - An entry answers for `lifetime` at most (1 s by default), counted from before the read
///   that made it. A token revoked by another process (`engine serve token revoke`) therefore
///   passes for at most `lifetime` after the revocation commits.
/// - On PostgreSQL a revocation also notifies every instance (`RemoteEvent.revoked`), which
///   forgets the token at once.
/// - Only found tokens are kept, so a new token passes at its first request, and an unknown one
///   is read every time. At most `capacity` entries are kept: when it is full, expired entries
///   go, then all of them.
public final class TokenCache: Sendable {
    public static let defaultLifetime: Duration = .seconds(1)

    private let lifetime: UInt64
    private let capacity: Int
    private let now: @Sendable () -> UInt64
    private struct State {
        var entries: [[UInt8]: (user: StoredUser, expires: UInt64)] = [:]
        /// The tokens being looked up, with how many lookups are under way and how many times
        /// the token was forgotten meanwhile: a lookup that began before its token was forgotten
        /// is not kept, since it may have read the token before its revocation committed.
        var lookups: [[UInt8]: (running: Int, forgets: UInt64)] = [:]
    }

    private let state = Locked(State())

    /// A cache whose entries answer for `lifetime`. `now` is a monotonic clock in nanoseconds
    /// (tests pass their own).
    public init(
        lifetime: Duration = defaultLifetime, capacity: Int = 100_000,
        now: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }
    ) {
        let (seconds, attoseconds) = lifetime.components
        self.lifetime = UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        self.capacity = max(1, capacity)
        self.now = now
    }

    /// The token's user: from the cache while its entry is fresh, otherwise from `lookup`, whose
    /// answer is kept when it found one and the token was not forgotten while it looked.
    public func user(forTokenHash hash: [UInt8], lookup: () async throws -> StoredUser?) async throws -> StoredUser? {
        let started = now()
        let (entry, forgets) = state.withLock { state -> ((user: StoredUser, expires: UInt64)?, UInt64) in
            if let entry = state.entries[hash], entry.expires > started { return (entry, 0) }
            var running = state.lookups[hash] ?? (0, 0)
            running.running += 1
            state.lookups[hash] = running
            return (nil, running.forgets)
        }
        if let entry { return entry.user }
        let found: StoredUser?
        do {
            found = try await lookup()
        } catch {
            _ = state.withLock { Self.finish(hash, &$0) }
            throw error
        }
        guard let user = found else {
            state.withLock { state in
                Self.finish(hash, &state)
                state.entries.removeValue(forKey: hash)
            }
            return nil
        }
        let expires = started &+ lifetime
        state.withLock { state in
            let forgotten = Self.finish(hash, &state) != forgets
            guard !forgotten else { return }
            if state.entries.count >= capacity, state.entries[hash] == nil {
                let time = now()
                state.entries = state.entries.filter { $0.value.expires > time }
                if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            }
            state.entries[hash] = (user, expires)
        }
        return user
    }

    /// Ends a lookup of `hash`; returns how many times the token was forgotten while lookups of
    /// it were under way.
    @discardableResult
    private static func finish(_ hash: [UInt8], _ state: inout State) -> UInt64 {
        guard var running = state.lookups[hash] else { return 0 }
        running.running -= 1
        state.lookups[hash] = running.running > 0 ? running : nil
        return running.forgets
    }

    /// Forgets a token (it was revoked): its next request reads the token table, and no lookup
    /// of it already under way is kept.
    public func forget(tokenHash hash: [UInt8]) {
        state.withLock { state in
            state.entries.removeValue(forKey: hash)
            state.lookups[hash]?.forgets &+= 1
        }
    }

    /// How many tokens are kept.
    public var count: Int { state.withLock { $0.entries.count } }
}
#endif
