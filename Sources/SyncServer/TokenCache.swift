#if SyncServer
import EngineSupport
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
        /// Moves on at every forget: a lookup that began before one is not kept, since it may
        /// have read the token before its revocation committed.
        var forgets: UInt64 = 0
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
    /// answer is kept when it found one and no token was forgotten while it looked.
    public func user(forTokenHash hash: [UInt8], lookup: () async throws -> StoredUser?) async throws -> StoredUser? {
        let started = now()
        let (entry, forgets) = state.withLock { ($0.entries[hash], $0.forgets) }
        if let entry, entry.expires > started { return entry.user }
        guard let user = try await lookup() else {
            state.withLock { _ = $0.entries.removeValue(forKey: hash) }
            return nil
        }
        let expires = started &+ lifetime
        state.withLock { state in
            guard state.forgets == forgets else { return }
            if state.entries.count >= capacity, state.entries[hash] == nil {
                let time = now()
                state.entries = state.entries.filter { $0.value.expires > time }
                if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            }
            state.entries[hash] = (user, expires)
        }
        return user
    }

    /// Forgets a token (it was revoked): its next request reads the token table, and no lookup
    /// already under way is kept.
    public func forget(tokenHash hash: [UInt8]) {
        state.withLock { state in
            state.entries.removeValue(forKey: hash)
            state.forgets &+= 1
        }
    }

    /// How many tokens are kept.
    public var count: Int { state.withLock { $0.entries.count } }
}
#endif
