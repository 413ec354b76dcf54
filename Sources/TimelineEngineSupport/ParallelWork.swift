import Dispatch
import Foundation

/// CPU work split into parts that run in parallel on threads of their own, never on Swift's
/// cooperative pool.
///
/// `DispatchQueue.concurrentPerform` runs its iterations on dispatch's global queue, whose
/// threads on Linux are the cooperative pool's (one per core, two on a 2-core machine): a
/// comparison of many sessions with two jobs held a pool thread for minutes, and the app's (or
/// the test run's) other tasks queued behind it. Here every part but the caller's runs on a
/// thread started for it, which the system time-slices with the pool instead of queueing the
/// pool's work behind it. A thread starts with its creator's scheduling priority (its nice
/// value on Linux, its quality of service on Apple platforms), so work started at a low
/// priority stays there.
public enum ParallelWork {
    /// Runs `work(0)`, …, `work(count − 1)` in parallel and returns when every part has
    /// finished. The caller suspends: every part runs on a thread of its own.
    public static func run(count: Int, _ work: @escaping @Sendable (_ part: Int) -> Void) async {
        guard count > 0 else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let remaining = Locked(count)
            for part in 0..<count {
                start {
                    work(part)
                    if remaining.withLock({
                        $0 -= 1
                        return $0
                    }) == 0 {
                        continuation.resume()
                    }
                }
            }
        }
    }

    /// Runs `work(0)`, …, `work(count − 1)` in parallel and returns when every part has
    /// finished, for synchronous callers. The caller runs part 0 itself and then waits for the
    /// parts still running on threads of their own: a caller on the cooperative pool holds its
    /// own thread, as any synchronous work does, and no other.
    public static func perform(count: Int, _ work: @Sendable (_ part: Int) -> Void) {
        guard count > 1 else {
            if count == 1 { work(0) }
            return
        }
        withoutActuallyEscaping(work) { work in
            // The threads reach `work` through the box, which lets go of it before returning:
            // a thread's own block may outlive the call.
            let shared = Locked<(@Sendable (Int) -> Void)?>(work)
            let group = DispatchGroup()
            for part in 1..<count {
                group.enter()
                start {
                    shared.withLock { $0 }?(part)
                    group.leave()
                }
            }
            work(0)
            group.wait()
            shared.withLock { $0 = nil }
        }
    }

    /// Starts `body` on a new thread with the caller's priority.
    private static func start(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread(block: body)
        thread.name = "timeline-engine.parallel-work"
        #if canImport(Darwin)
        thread.qualityOfService = Thread.current.qualityOfService
        #endif
        thread.start()
    }
}
