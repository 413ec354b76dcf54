#if SyncServer
import TimelineEngineSupport
import Foundation
import GRDB

/// Copies a WAL database's committed pages back into the database file on a connection of its
/// own, so that the writer never does it.
///
/// SQLite checkpoints by itself in the connection that commits once the WAL holds 1,000 pages,
/// and that commit returns only after the checkpoint has written the pages and synced the file:
/// every request waiting on the writer waits too, which made most of the server's slowest
/// answers. The storage turns that off on its writer (`PRAGMA wal_autocheckpoint = 0`) and
/// calls `committed()` after each commit; a passive checkpoint then starts here, on GRDB's own
/// dispatch queue for this connection, when none is running and `interval` has passed since the
/// last one began. A passive checkpoint neither waits for nor blocks the writer and readers; the
/// writer starts the WAL again from its beginning once everything in it has been copied.
final class BackgroundCheckpoint: Sendable {
    private struct Runs {
        var running = false
        var lastStart: ContinuousClock.Instant?
        var completed = 0
        var lastResult: (walFrameCount: Int, checkpointedFrameCount: Int)?
    }

    /// GRDB's, used through its own serial queue.
    private let connection: DatabaseQueue
    private let interval: Duration
    private let clock = ContinuousClock()
    private let runs = Locked(Runs())

    /// The longest wait between checkpoints while commits come in, by default.
    static let defaultInterval: Duration = .milliseconds(500)

    /// A checkpointing connection to the database at `path`, which the writer has made.
    init(path: String, interval: Duration = BackgroundCheckpoint.defaultInterval) throws {
        var configuration = Configuration()
        configuration.label = "timeline-sync-server.checkpoint"
        configuration.busyMode = .timeout(10)
        connection = try DatabaseQueue(path: path, configuration: configuration)
        self.interval = interval
    }

    /// The writer has committed: starts a checkpoint unless one is running or began less than
    /// `interval` ago. Returns at once.
    func committed() {
        let now = clock.now
        let start = runs.withLock { runs in
            guard !runs.running, runs.lastStart.map({ $0.duration(to: now) >= interval }) ?? true else { return false }
            runs.running = true
            runs.lastStart = now
            return true
        }
        guard start else { return }
        connection.asyncWriteWithoutTransaction { db in
            // A failed checkpoint (the disk, say) leaves the pages in the WAL for the next one.
            let result = try? db.checkpoint(.passive)
            self.runs.withLock { runs in
                runs.running = false
                runs.completed += 1
                if let result { runs.lastResult = result }
            }
        }
    }

    /// Returns once the checkpoint under way, if any, has finished: the connection's queue runs
    /// one thing at a time.
    func settled() async throws {
        try await connection.writeWithoutTransaction { _ in }
    }

    /// How many checkpoints have finished, and the WAL's frames and those copied at the last one
    /// that succeeded.
    var progress: (completed: Int, running: Bool, last: (walFrameCount: Int, checkpointedFrameCount: Int)?) {
        runs.withLock { ($0.completed, $0.running, $0.lastResult) }
    }
}
#endif
