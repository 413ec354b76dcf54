import Dispatch
import Testing

/// A trait that runs each test it applies to on a thread of its own instead of Swift's
/// cooperative pool.
///
/// The pool has as many threads as the machine has cores (two here). A synchronous test that
/// computes for seconds, a simulation or a search over thousands of texts, holds one of them
/// for as long, and the asynchronous tests queued behind it (a fetch to cancel, a long-poll to
/// answer) wait with it: in a full run they were seen waiting minutes, past their deadlines.
/// Under this trait the test runs as the same task, so `#expect` and the test's task-local
/// state work as usual, but its jobs go to a serial queue of its own (a thread the system
/// time-slices like any other), through a task executor preference (SE-0417).
///
/// Put it on every test or suite whose synchronous work takes more than about a second:
/// `@Suite("…", .ownThread, .timeLimit(.minutes(10)))`.
public struct OwnThreadTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// True while the caller runs on a test's own queue.
    public static var isCurrent: Bool { DispatchQueue.getSpecific(key: QueueTaskExecutor.marker) != nil }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
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
