#if SyncServer
import TimelineEngineSupport
import Foundation

/// Group commit: requests that arrive while a transaction commits wait, and the next
/// transaction applies all of them, so the database commits (and syncs its log) once per group
/// rather than once per request.
///
/// The first request to find no group running leads: it runs `commit` on every request
/// waiting, its own included, and when more arrived meanwhile it hands the lead to the first of
/// them, which runs the next group. Nobody waits on a lock while a group runs, and no task is
/// started: each group runs in the task of a request it serves.
///
/// `commit` gets the group's jobs in arrival order and returns one result per job, in that
/// order; when it throws, every job of the group fails with that error.
public final class GroupCommit<Job: Sendable, Result: Sendable>: Sendable {
    public typealias Commit = @Sendable ([Job]) async throws -> [Swift.Result<Result, any Error>]

    private enum Turn {
        case done(Swift.Result<Result, any Error>)
        /// Lead a group; `queued` when this request waits in the queue (it was handed the lead).
        case lead(queued: Bool)
    }

    private struct Waiter {
        let job: Job
        let continuation: CheckedContinuation<Turn, Never>
    }

    private let commit: Commit
    private let maxGroup: Int
    private struct Queue {
        var waiting: [Waiter] = []
        var running = false
    }

    private let queue = Locked(Queue())

    /// Groups of at most `maxGroup` jobs, each applied by `commit`.
    public init(maxGroup: Int = 256, commit: @escaping Commit) {
        self.maxGroup = max(1, maxGroup)
        self.commit = commit
    }

    /// Applies `job` in the next group, and returns its result.
    public func run(_ job: Job) async throws -> Result {
        // Whether to lead and joining the queue are one step, so no request joins a queue that
        // its last leader has left.
        let turn: Turn = await withCheckedContinuation { continuation in
            let leads = queue.withLock { queue in
                if queue.running {
                    queue.waiting.append(Waiter(job: job, continuation: continuation))
                    return false
                }
                queue.running = true
                return true
            }
            if leads { continuation.resume(returning: .lead(queued: false)) }
        }
        switch turn {
        case .done(let result):
            return try result.get()
        case .lead(let queued):
            return try await lead(own: queued ? nil : job).get()
        }
    }

    /// How many requests wait for the next group.
    public var queued: Int { queue.withLock { $0.waiting.count } }

    /// Runs one group: `own` (when this request leads from the start) and whoever waits, up to
    /// `maxGroup`; then hands the lead on, or ends the run.
    private func lead(own: Job?) async -> Swift.Result<Result, any Error> {
        let group: [Waiter] = queue.withLock { queue in
            let take = min(queue.waiting.count, own == nil ? maxGroup : maxGroup - 1)
            defer { queue.waiting.removeFirst(take) }
            return Array(queue.waiting.prefix(take))
        }
        // A leader handed the lead is the first of its group: it is not resumed again.
        var jobs = group.map(\.job)
        var resumed = group
        if let own { jobs.insert(own, at: 0) } else { resumed.removeFirst() }
        var results: [Swift.Result<Result, any Error>]
        do {
            results = try await commit(jobs)
            if results.count != jobs.count {
                results = Array(repeating: .failure(GroupCommitError.resultCount(results.count, jobs.count)), count: jobs.count)
            }
        } catch {
            results = Array(repeating: .failure(error), count: jobs.count)
        }
        let next: Waiter? = queue.withLock { queue in
            if queue.waiting.isEmpty {
                queue.running = false
                return nil
            }
            return queue.waiting[0]
        }
        for (waiter, result) in zip(resumed, results.dropFirst()) { waiter.continuation.resume(returning: .done(result)) }
        next?.continuation.resume(returning: .lead(queued: true))
        return results[0]
    }
}

/// A group's `commit` broke its contract.
public enum GroupCommitError: Error, CustomStringConvertible {
    case resultCount(Int, Int)

    public var description: String {
        switch self {
        case .resultCount(let got, let expected): "group commit: \(got) results for \(expected) jobs"
        }
    }
}
#endif
