#if SyncServer
import Foundation
@testable import TimelineEngineSyncServer
import Testing
import TimelineEngineTestSupport

/// Long-polls' wakes and the cursors the server keeps for them.
@Suite("Change waiters", .timeLimit(.minutes(5)))
struct ChangeWaitersTests {
    /// A long-poll on `user` after `generation`, in a task of its own, once it waits. A wake
    /// takes it off `count` at once; the test cancels it when done, woken or not.
    static func waiter(_ waiters: ChangeWaiters, user: Int64, after generation: UInt64) async throws -> Task<ChangeWaiters.Change?, Never> {
        let before = await waiters.count
        let task = Task { await waiters.wait(user: user, after: generation, seconds: 600) }
        try await Deadline.wait(seconds: 60, "the long-poll to wait") { await waiters.count > before }
        return task
    }

    @Test("a cursor read from the database is kept only if no wake came between the generation and the answer")
    func remembersOnlyUnmovedGenerations() async {
        let waiters = ChangeWaiters()
        let generation = await waiters.generation(of: 1)
        await waiters.changed(user: 1, cursor: 4)
        await waiters.remember(cursor: 3, of: 1, readAt: generation)
        #expect(await waiters.snapshot(of: 1).cursor == nil)
        let now = await waiters.generation(of: 1)
        await waiters.remember(cursor: 4, of: 1, readAt: now)
        #expect(await waiters.snapshot(of: 1) == (now, 4))
        // Another user's wake does not touch this one's.
        await waiters.changed(user: 2, cursor: 9)
        #expect(await waiters.snapshot(of: 1) == (now, 4))
    }

    @Test("a write's wake raises the kept cursor; the instance's own notification of it wakes no one again")
    func ownNotificationIsHeardOnce() async throws {
        let waiters = ChangeWaiters()
        await waiters.remember(cursor: 4, of: 1, readAt: await waiters.generation(of: 1))
        await waiters.changed(user: 1, cursor: 5)
        let (generation, cursor) = await waiters.snapshot(of: 1)
        #expect(cursor == 5)
        let poll = try await Self.waiter(waiters, user: 1, after: generation)
        // The notification of the same commit, and a late one of an earlier commit.
        await waiters.changed(user: 1, cursor: 5)
        await waiters.changed(user: 1, cursor: 3)
        #expect(await waiters.count == 1)
        #expect(await waiters.generation(of: 1) == generation)
        await waiters.changed(user: 1, cursor: 6)
        #expect(await waiters.count == 0)
        poll.cancel()
        #expect(await waiters.snapshot(of: 1).cursor == 6)
    }

    @Test("a read that finds a counter not yet heard of does not stop that change's wake")
    func readAheadOfTheWakeStillWakes() async throws {
        let waiters = ChangeWaiters()
        await waiters.changed(user: 1, cursor: 5)
        let generation = await waiters.generation(of: 1)
        let poll = try await Self.waiter(waiters, user: 1, after: generation)
        // Another instance committed 6; a read sees it before its notification arrives.
        await waiters.remember(cursor: 6, of: 1, readAt: generation)
        #expect(await waiters.snapshot(of: 1).cursor == 6)
        await waiters.changed(user: 1, cursor: 6)
        #expect(await waiters.count == 0)
        #expect(await waiters.generation(of: 1) != generation)
        poll.cancel()
    }

    @Test("a change that does not say its counter wakes, and the kept cursor is forgotten")
    func changeWithoutCounterForgets() async throws {
        let waiters = ChangeWaiters()
        await waiters.remember(cursor: 4, of: 1, readAt: await waiters.generation(of: 1))
        let poll = try await Self.waiter(waiters, user: 1, after: await waiters.generation(of: 1))
        await waiters.changed(user: 1, cursor: nil)
        #expect(await waiters.count == 0)
        poll.cancel()
        #expect(await waiters.snapshot(of: 1).cursor == nil)
    }

    @Test("while other instances cannot be heard nothing is kept; when they can again, everyone is woken")
    func listenerInterruption() async throws {
        let waiters = ChangeWaiters(hearsEveryChange: false)
        await waiters.remember(cursor: 4, of: 1, readAt: await waiters.generation(of: 1))
        #expect(await waiters.snapshot(of: 1).cursor == nil)
        await waiters.listening()
        await waiters.remember(cursor: 4, of: 1, readAt: await waiters.generation(of: 1))
        #expect(await waiters.snapshot(of: 1).cursor == 4)
        await waiters.interrupted()
        #expect(await waiters.snapshot(of: 1).cursor == nil)
        let generation = await waiters.generation(of: 7)
        let poll = try await Self.waiter(waiters, user: 7, after: generation)
        // A read made while deaf is not kept, even if it is answered after the listener is back.
        await waiters.listening()
        #expect(await waiters.count == 0)
        poll.cancel()
        #expect(await waiters.generation(of: 7) != generation)
        await waiters.remember(cursor: 2, of: 7, readAt: generation)
        #expect(await waiters.snapshot(of: 7).cursor == nil)
    }

    @Test("a long-poll woken by a write gets the write's records; by a timeout, a notification or shutdown, nothing")
    func wakesCarryTheWritesRecords() async throws {
        let waiters = ChangeWaiters()
        async let woken = waiters.wait(user: 1, after: await waiters.generation(of: 1), seconds: 600)
        try await Deadline.wait(seconds: 60, "the long-poll to wait") { await waiters.count == 1 }
        await waiters.changed(user: 1, cursor: 3, records: [#"{"a":1}"#])
        #expect(await woken == ChangeWaiters.Change(cursor: 3, records: [#"{"a":1}"#]))
        #expect(await waiters.wait(user: 1, after: await waiters.generation(of: 1), seconds: 0.01) == nil)
        async let notified = waiters.wait(user: 1, after: await waiters.generation(of: 1), seconds: 600)
        try await Deadline.wait(seconds: 60, "the long-poll to wait") { await waiters.count == 1 }
        await waiters.changed(user: 1, cursor: 4)
        #expect(await notified == nil)
        async let closing = waiters.wait(user: 1, after: await waiters.generation(of: 1), seconds: 600)
        try await Deadline.wait(seconds: 60, "the long-poll to wait") { await waiters.count == 1 }
        await waiters.close()
        #expect(await closing == nil)
    }

    @Test("a notification's payload: users and counters, a user alone (an earlier release), a revocation, or nothing known")
    func notificationPayloads() {
        #expect(PostgresRegisterStorage.events("12:345") == [.changed(user: 12, cursor: 345)])
        #expect(
            PostgresRegisterStorage.events("12:345,7:1,9") == [
                .changed(user: 12, cursor: 345), .changed(user: 7, cursor: 1), .changed(user: 9, cursor: nil),
            ])
        #expect(PostgresRegisterStorage.events("12") == [.changed(user: 12, cursor: nil)])
        #expect(PostgresRegisterStorage.events("revoked:0aff") == [.revoked(tokenHash: [0x0a, 0xff])])
        // An entry this release does not know is left out, and the others are heard.
        #expect(PostgresRegisterStorage.events("3:4,x:5,,6:7") == [.changed(user: 3, cursor: 4), .changed(user: 6, cursor: 7)])
        for unknown in ["", "12:", ":5", "12:x", "x:5", "revoked:", "revoked:abc", "12:5:6", ","] {
            #expect(PostgresRegisterStorage.events(unknown).isEmpty, "\(unknown)")
        }
    }

    @Test(
        "announcements are written as notifications of at most 100 users each, which read back as the same changes, under PostgreSQL's 8,000 bytes"
    )
    func announcementPayloads() {
        let changes = (0..<250).map { ChangeAnnouncement(user: Int64.max - Int64($0), cursor: Int64.min + Int64($0)) }
        let payloads = PostgresRegisterStorage.payloads(changes)
        #expect(payloads.count == 3)
        #expect(payloads.allSatisfy { $0.utf8.count < 8_000 })
        #expect(payloads.flatMap(PostgresRegisterStorage.events) == changes.map { .changed(user: $0.user, cursor: $0.cursor) })
        #expect(PostgresRegisterStorage.payloads([ChangeAnnouncement(user: 12, cursor: 345)]) == ["12:345"])
    }
}
#endif
