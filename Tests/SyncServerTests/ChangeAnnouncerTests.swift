#if SyncServer
import Foundation
import Logging
@testable import TimelineEngineSyncServer
import Testing
import TimelineEngineTestSupport

/// Announcements of committed changes to other instances: queued, sent in groups with one
/// announcement per user, and sent before the server stops.
@Suite("Change announcer", .timeLimit(.minutes(5)))
struct ChangeAnnouncerTests {
    /// Every group sent, a first send held until the test opens it, and sends made to fail.
    final class Sends: @unchecked Sendable {
        // @unchecked: every property is read and written under `lock` only.
        private let lock = NSLock()
        private var sent: [[ChangeAnnouncement]] = []
        private var attempts = 0
        private var open: Bool
        private var failures: Int

        init(held: Bool = false, failures: Int = 0) {
            open = !held
            self.failures = failures
        }

        var groups: [[ChangeAnnouncement]] { lock.withLock { sent } }
        var tried: Int { lock.withLock { attempts } }
        var isOpen: Bool { lock.withLock { open } }
        func release() { lock.withLock { open = true } }

        func send(_ changes: [ChangeAnnouncement]) async throws {
            let fails = lock.withLock {
                attempts += 1
                guard failures > 0 else { return false }
                failures -= 1
                return true
            }
            if fails { throw SendFailure() }
            try await Deadline.wait(seconds: 180, "the test to release the first send") { isOpen }
            lock.withLock { sent.append(changes) }
        }
    }

    struct SendFailure: Error, CustomStringConvertible {
        var description: String { "connection reset" }
    }

    /// The warnings logged, as they would be printed.
    final class Warnings: LogHandler, @unchecked Sendable {
        // @unchecked: `lines` is read and written under `lock` only.
        private let lock = NSLock()
        private var lines: [String] = []
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .warning
        var logged: [String] { lock.withLock { lines } }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            lock.withLock { lines.append("\(event.level) \(event.message) \(fields)") }
        }
    }

    /// The announcer's loop in a task of its own, until `body` returns and the loop has ended.
    static func running(_ announcer: ChangeAnnouncer, _ body: () async throws -> Void) async throws {
        let loop = Task { try await announcer.run() }
        do {
            try await body()
        } catch {
            loop.cancel()
            throw error
        }
        announcer.finish()
        try await loop.value
    }

    static func change(_ user: Int64, _ cursor: Int64) -> ChangeAnnouncement { ChangeAnnouncement(user: user, cursor: cursor) }

    @Test(
        "an idle announcer sends at once; what is queued while a group is sent goes in the next, one announcement per user with their highest counter, in order of the users"
    )
    func groups() async throws {
        let sends = Sends(held: true)
        let announcer = ChangeAnnouncer(logger: Logger(label: "test")) { try await sends.send($0) }
        try await Self.running(announcer) {
            announcer.announce(user: 1, cursor: 1)
            try await Deadline.wait(seconds: 180, "the first send to start") { sends.tried == 1 }
            for (user, cursor) in [(2, 4), (1, 2), (9, 1), (3, 9), (2, 5), (1, 1)] {
                announcer.announce(user: Int64(user), cursor: Int64(cursor))
            }
            sends.release()
            try await Deadline.wait(seconds: 180, "the second group") { sends.groups.count == 2 }
        }
        #expect(sends.groups == [[Self.change(1, 1)], [Self.change(1, 2), Self.change(2, 5), Self.change(3, 9), Self.change(9, 1)]])
    }

    @Test("a graceful shutdown or a cancellation sends what is queued before the loop ends")
    func shutdownSendsWhatIsLeft() async throws {
        let sends = Sends(held: true)
        let announcer = ChangeAnnouncer(logger: Logger(label: "test")) { try await sends.send($0) }
        let loop = Task { try await announcer.run() }
        announcer.announce(user: 1, cursor: 1)
        try await Deadline.wait(seconds: 180, "the first send to start") { sends.tried == 1 }
        announcer.announce(user: 2, cursor: 3)
        loop.cancel()
        sends.release()
        try await loop.value
        #expect(sends.groups == [[Self.change(1, 1)], [Self.change(2, 3)]])

        // Finished with nothing queued, the loop ends without sending.
        let quiet = Sends()
        let idle = ChangeAnnouncer(logger: Logger(label: "test")) { try await quiet.send($0) }
        try await Self.running(idle) {}
        #expect(quiet.tried == 0)
    }

    @Test("a group of more users than one statement carries is sent in statements of at most that many")
    func largeGroups() async throws {
        let sends = Sends(held: true)
        let announcer = ChangeAnnouncer(logger: Logger(label: "test")) { try await sends.send($0) }
        let users = ChangeAnnouncer.maxPerStatement * 2 + 5
        try await Self.running(announcer) {
            announcer.announce(user: 0, cursor: 1)
            try await Deadline.wait(seconds: 180, "the first send to start") { sends.tried == 1 }
            for user in 1...users { announcer.announce(user: Int64(user), cursor: 1) }
            sends.release()
            try await Deadline.wait(seconds: 180, "every group") { sends.groups.count == 4 }
        }
        #expect(sends.groups.map(\.count) == [1, ChangeAnnouncer.maxPerStatement, ChangeAnnouncer.maxPerStatement, 5])
        #expect(sends.groups.dropFirst().joined().map(\.user) == (1...users).map(Int64.init))
    }

    @Test("a failed send is tried once more; when that fails too, the changes are logged as not announced and the loop goes on")
    func failures() async throws {
        let warnings = Warnings()
        let logger = Logger(label: "test") { _ in warnings }
        let retried = Sends(failures: 1)
        let once = ChangeAnnouncer(logger: logger) { try await retried.send($0) }
        try await Self.running(once) {
            once.announce(user: 4, cursor: 2)
            try await Deadline.wait(seconds: 180, "the send") { !retried.groups.isEmpty }
        }
        #expect(retried.groups == [[Self.change(4, 2)]])
        #expect(retried.tried == 2)
        #expect(warnings.logged.isEmpty)

        let failing = Sends(failures: 2)
        let twice = ChangeAnnouncer(logger: logger) { try await failing.send($0) }
        try await Self.running(twice) {
            twice.announce(user: 4, cursor: 3)
            twice.announce(user: 5, cursor: 1)
            try await Deadline.wait(seconds: 180, "the warning") { !warnings.logged.isEmpty }
            twice.announce(user: 4, cursor: 4)
            try await Deadline.wait(seconds: 180, "the next send") { !failing.groups.isEmpty }
        }
        #expect(
            warnings.logged == [
                "warning changes not announced to other instances; their long-polls of these users answer when their wait ends error=connection reset users=2"
            ])
        #expect(failing.groups == [[Self.change(4, 4)]])
    }
}
#endif
