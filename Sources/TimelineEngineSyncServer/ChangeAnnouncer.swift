#if SyncServer
import TimelineEngineSupport
import Foundation
import Logging
import ServiceLifecycle

/// Tells the other server instances on a shared database which users' registers changed, after
/// the writes have committed and this instance has woken its own long-polls.
///
/// A notification in the write's own statement made every write take PostgreSQL's notification
/// lock, which is held from before the commit to its end, so the writes of every instance
/// committed one at a time: pgbench ran the server's write at 13,000–16,000 a second with the
/// notification, 35,000–37,000 without (the history of docs/PERFORMANCE.md). Instead, a write queues its change here and
/// is answered at once. One loop sends what is queued (`RegisterStorage.announce`, one
/// statement), then what was queued meanwhile, and so on: one announcement per user, with their
/// highest counter. An idle server sends each at once, one round trip after its commit.
///
/// A listener may hear a user's counters out of order; the higher one is enough, since the
/// counter's row lock commits a user's writes in counter order (`ChangeWaiters.changed`). A
/// statement that fails is tried once more, then logged: the other instances' long-polls of
/// those users answer when their wait ends. The server runs the loop as the first of its
/// services, so that a graceful shutdown stops it last, once the last request has been
/// answered, and it sends what is left before it returns.
final class ChangeAnnouncer: Service, Sendable {
    /// Sends one group.
    typealias Send = @Sendable ([ChangeAnnouncement]) async throws -> Void

    /// The most announcements one statement carries.
    static let maxPerStatement = 1_000

    private let send: Send
    private let logger: Logger
    private struct Queue {
        /// Each user's highest counter not yet sent.
        var pending: [Int64: Int64] = [:]
        /// The loop, while it waits for something to send.
        var idle: CheckedContinuation<Void, Never>?
        /// Set at shutdown: the loop sends what is left and ends.
        var finishing = false
    }

    private let queue = Locked(Queue())

    init(logger: Logger, send: @escaping Send) {
        self.logger = logger
        self.send = send
    }

    /// Queues the change for the next group; returns at once.
    func announce(user: Int64, cursor: Int64) {
        wakingTheLoop { $0.pending[user] = max($0.pending[user] ?? cursor, cursor) }
    }

    /// Sends groups until a graceful shutdown or cancellation, then what is left.
    func run() async throws {
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                while let group = await nextGroup() {
                    for start in stride(from: 0, to: group.count, by: Self.maxPerStatement) {
                        await deliver(Array(group[start..<min(group.count, start + Self.maxPerStatement)]))
                    }
                }
            } onGracefulShutdown: {
                self.finish()
            }
        } onCancel: {
            self.finish()
        }
    }

    /// Ends the loop once what is queued has been sent.
    func finish() {
        wakingTheLoop { $0.finishing = true }
    }

    /// Makes `change` under the lock, then resumes the loop if it was waiting, outside it.
    private func wakingTheLoop(_ change: (inout Queue) -> Void) {
        let loop = queue.withLock { queue -> CheckedContinuation<Void, Never>? in
            change(&queue)
            defer { queue.idle = nil }
            return queue.idle
        }
        loop?.resume()
    }

    /// What is queued, in order of the users' ids, once there is any; nil when finishing and
    /// nothing is left.
    private func nextGroup() async -> [ChangeAnnouncement]? {
        while true {
            let (group, done): ([ChangeAnnouncement], Bool) = queue.withLock { queue in
                let group = queue.pending.sorted { $0.key < $1.key }.map { ChangeAnnouncement(user: $0.key, cursor: $0.value) }
                queue.pending.removeAll(keepingCapacity: true)
                return (group, queue.finishing)
            }
            if !group.isEmpty { return group }
            if done { return nil }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let wait = queue.withLock { queue in
                    guard queue.pending.isEmpty, !queue.finishing else { return false }
                    queue.idle = continuation
                    return true
                }
                if !wait { continuation.resume() }
            }
        }
    }

    /// Sends a group, and once more if that fails.
    private func deliver(_ group: [ChangeAnnouncement]) async {
        do {
            try await send(group)
        } catch {
            do {
                try await send(group)
            } catch {
                logger.warning(
                    "changes not announced to other instances; their long-polls of these users answer when their wait ends",
                    metadata: ["users": "\(group.count)", "error": "\(String(reflecting: error))"])
            }
        }
    }
}
#endif
