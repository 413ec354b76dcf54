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
    private let entries = Locked<[[UInt8]: (user: StoredUser, expires: UInt64)]>([:])

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
    /// answer is kept when it found one.
    public func user(forTokenHash hash: [UInt8], lookup: () async throws -> StoredUser?) async throws -> StoredUser? {
        let started = now()
        if let entry = entries.withLock({ $0[hash] }), entry.expires > started { return entry.user }
        guard let user = try await lookup() else {
            forget(tokenHash: hash)
            return nil
        }
        let expires = started &+ lifetime
        entries.withLock { entries in
            if entries.count >= capacity, entries[hash] == nil {
                let time = now()
                entries = entries.filter { $0.value.expires > time }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            }
            entries[hash] = (user, expires)
        }
        return user
    }

    /// Forgets a token (it was revoked): its next request reads the token table.
    public func forget(tokenHash hash: [UInt8]) {
        _ = entries.withLock { $0.removeValue(forKey: hash) }
    }

    /// How many tokens are kept.
    public var count: Int { entries.withLock { $0.count } }
}
#endif
