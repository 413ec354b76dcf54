import Foundation

/// Runs an exchange from synchronous code (a sync transport's `pull` and `push`) and waits for
/// it. The exchange's task runs on a queue of its own, not on Swift's cooperative threads: a
/// caller that blocks one of those (a synchronous round called from async code) cannot then
/// starve the exchange of threads, however few cores there are.
public enum BlockingExchange {
    public static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws(HTTPExchangeError) -> T) -> Result<T, HTTPExchangeError> {
        let outcome = Outcome<Result<T, HTTPExchangeError>>()
        let semaphore = DispatchSemaphore(value: 0)
        let work: @Sendable () async -> Void = {
            do throws(HTTPExchangeError) {
                outcome.set(.success(try await body()))
            } catch {
                outcome.set(.failure(error))
            }
            semaphore.signal()
        }
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            Task(executorPreference: QueueExecutor.shared) { await work() }
        } else {
            Task.detached { await work() }
        }
        semaphore.wait()
        return outcome.get()!
    }

    /// A task executor on a concurrent dispatch queue.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    final class QueueExecutor: TaskExecutor {
        static let shared = QueueExecutor()
        private let queue = DispatchQueue(label: "timeline-engine.blocking-exchange", attributes: .concurrent)

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
        }
    }

    /// A value handed across threads.
    private final class Outcome<Value: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Value?

        func set(_ newValue: Value) {
            lock.withLock { value = newValue }
        }

        func get() -> Value? {
            lock.withLock { value }
        }
    }
}
