import Dispatch
import Foundation
import Testing

/// A trait for long tests: each test it applies to runs on a thread of its own instead of Swift's
/// cooperative pool, and one such test runs at a time.
///
/// The pool has as many threads as the machine has cores (two here). A synchronous test that
/// computes for seconds, a simulation or a search over thousands of texts, holds one of them
/// for as long, and the asynchronous tests queued behind it (a fetch to cancel, a long-poll to
/// answer) wait with it: in a full run they were seen waiting minutes, past their deadlines.
/// Under this trait the test runs as the same task, so `#expect` and the test's task-local
/// state work as usual, but its jobs go to a serial queue of its own (a thread the system
/// time-slices like any other), through a task executor preference (SE-0417).
///
/// And the long tests take turns (`LongTestLane`): a dozen of them computing at once on a busy
/// machine left the pool's two threads a sliver of the cores, and tests that need milliseconds
/// reported a minute. A long test's time limit counts its wait for its turn, so its suite's
/// limit is sized for the queue (30 minutes).
///
/// Put it on every test or suite whose synchronous work takes more than about a second, or
/// that runs a long computation in a child process:
/// `@Suite("…", .ownThread, .timeLimit(.minutes(30)))`.
public struct OwnThreadTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// True while the caller runs on a test's own queue.
    public static var isCurrent: Bool { DispatchQueue.getSpecific(key: QueueTaskExecutor.marker) != nil }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        await LongTestLane.shared.enter()
        defer { LongTestLane.shared.leave() }
        try await withTaskExecutorPreference(QueueTaskExecutor(label: "test: \(test.name)")) {
            try await function()
        }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Runs the test, or each test of the suite, on a thread of its own (`OwnThreadTrait`).
    public static var ownThread: Self { OwnThreadTrait() }
}

/// A task executor that runs its jobs in order on a serial dispatch queue of its own. A serial
/// queue targets dispatch's overcommitting root queue, which gives it a thread even when every
/// core is busy, unlike the cooperative pool.
final class QueueTaskExecutor: TaskExecutor {
    /// Set on every such queue, so that a test can tell where it runs.
    static let marker = DispatchSpecificKey<Bool>()
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.marker, value: true)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// The turns long tests take: at most `width` of them run at once, the others wait in order,
/// suspended.
public final class LongTestLane: @unchecked Sendable {
    // @unchecked: `running` and `waiting` are read and written under `lock` only.
    /// The lane of every `.ownThread` test: `ENGINE_TEST_LONG_TESTS_AT_ONCE` at a time when it is
    /// set (CI's quiet coverage run sets 2), else one per two cores, at least one.
    public static let shared = LongTestLane(width: configuredWidth(ProcessInfo.processInfo.environment))

    /// The width `environment` asks for, or one per two cores.
    public static func configuredWidth(_ environment: [String: String]) -> Int {
        if let text = environment["ENGINE_TEST_LONG_TESTS_AT_ONCE"], let width = Int(text), width >= 1 { return width }
        return max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
    }

    public let width: Int
    private let lock = NSLock()
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(width: Int) {
        self.width = width
    }

    /// Returns once it is the caller's turn.
    public func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = lock.withLock {
                if running < width {
                    running += 1
                    return true
                }
                waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// How many wait for their turn.
    public var waitingCount: Int { lock.withLock { waiting.count } }

    /// Ends the caller's turn: the next in line runs.
    public func leave() {
        let next = lock.withLock { () -> CheckedContinuation<Void, Never>? in
            if waiting.isEmpty {
                running -= 1
                return nil
            }
            return waiting.removeFirst()
        }
        next?.resume()
    }
}
