#if SyncServer
import Foundation
import TimelineEngineSyncServer
import Testing

/// A monotonic clock in nanoseconds that moves only when a test moves it.
final class ManualNanoseconds: Sendable {
    // The value lives in a Counter, which locks.
    private let nanoseconds = Counter(1_000_000_000)

    var read: @Sendable () -> UInt64 { { [nanoseconds] in UInt64(nanoseconds.value) } }
    func advance(by delta: Int) { nanoseconds.increment(by: delta) }
}

/// A number that tasks add to.
final class Counter: @unchecked Sendable {
    // @unchecked: `current` is read and written under `lock` only.
    private let lock = NSLock()
    private var current: Int

    init(_ start: Int = 0) { current = start }
    var value: Int { lock.withLock { current } }
    func increment(by delta: Int = 1) { lock.withLock { current += delta } }
}

/// The token cache on virtual time: what it answers from memory, and for how long.
@Suite("Token cache", .timeLimit(.minutes(10)))
struct TokenCacheTests {
    static let alice = StoredUser(id: 1, name: "alice")
    static let hash: [UInt8] = Array(repeating: 7, count: 32)

    @Test(
        "a found token answers from memory for one second from before its read, then is read again; a revoked one is then refused and forgotten")
    func lifetime() async throws {
        let clock = ManualNanoseconds()
        let cache = TokenCache(now: clock.read)
        let reads = Counter()
        var stored: StoredUser? = Self.alice
        // The read itself takes 300 ms: the second counts from before it.
        let lookup: () async throws -> StoredUser? = {
            reads.increment()
            clock.advance(by: 300_000_000)
            return stored
        }
        #expect(try await cache.user(forTokenHash: Self.hash, lookup: lookup) == Self.alice)
        clock.advance(by: 699_999_999)
        #expect(try await cache.user(forTokenHash: Self.hash, lookup: lookup) == Self.alice)
        #expect(reads.value == 1)
        stored = nil
        clock.advance(by: 1)
        #expect(try await cache.user(forTokenHash: Self.hash, lookup: lookup) == nil)
        #expect(reads.value == 2)
        #expect(cache.count == 0)
    }

    @Test("an unknown token is not kept: a token made a moment later passes at its first request")
    func unknownIsNotKept() async throws {
        let cache = TokenCache(now: ManualNanoseconds().read)
        var stored: StoredUser?
        #expect(try await cache.user(forTokenHash: Self.hash) { stored } == nil)
        stored = Self.alice
        #expect(try await cache.user(forTokenHash: Self.hash) { stored } == Self.alice)
    }

    @Test("a forgotten token (a revocation heard) is read again at once")
    func forget() async throws {
        let cache = TokenCache(lifetime: .seconds(3600), now: ManualNanoseconds().read)
        #expect(try await cache.user(forTokenHash: Self.hash) { Self.alice } == Self.alice)
        cache.forget(tokenHash: Self.hash)
        #expect(try await cache.user(forTokenHash: Self.hash) { nil } == nil)
    }

    @Test("a lookup under way when the token is forgotten (an erasure committed) is answered, not kept: the next request reads again")
    func forgetDuringLookup() async throws {
        let cache = TokenCache(lifetime: .seconds(3600), now: ManualNanoseconds().read)
        let reads = Counter()
        // The read found the token just before the erasure committed and the cache forgot it.
        #expect(
            try await cache.user(forTokenHash: Self.hash) {
                reads.increment()
                cache.forget(tokenHash: Self.hash)
                return Self.alice
            } == Self.alice)
        #expect(cache.count == 0)
        #expect(try await cache.user(forTokenHash: Self.hash) { nil } == nil)
        #expect(reads.value == 1)
        // Another token forgotten meanwhile (any revocation on a shared database) changes nothing.
        #expect(
            try await cache.user(forTokenHash: Self.hash) {
                cache.forget(tokenHash: Array(repeating: 9, count: 32))
                return Self.alice
            } == Self.alice)
        #expect(cache.count == 1)
    }

    @Test("a full cache drops its expired entries first, then all of them; it never holds more than its capacity")
    func capacity() async throws {
        let clock = ManualNanoseconds()
        let cache = TokenCache(capacity: 3, now: clock.read)
        for byte in UInt8(0)..<2 { _ = try await cache.user(forTokenHash: [byte]) { Self.alice } }
        clock.advance(by: 2_000_000_000)
        for byte in UInt8(2)..<4 { _ = try await cache.user(forTokenHash: [byte]) { Self.alice } }
        // The third entry found two expired ones and dropped them: [2] and [3] remain.
        #expect(cache.count == 2)
        _ = try await cache.user(forTokenHash: [4]) { Self.alice }
        #expect(cache.count == 3)
        _ = try await cache.user(forTokenHash: [5]) { Self.alice }
        #expect(cache.count == 1)
        // [5] is kept; [2] was dropped and is read again.
        let reads = Counter()
        _ = try await cache.user(forTokenHash: [5]) {
            reads.increment()
            return Self.alice
        }
        _ = try await cache.user(forTokenHash: [2]) {
            reads.increment()
            return Self.alice
        }
        #expect(reads.value == 1)
    }
}
#endif
