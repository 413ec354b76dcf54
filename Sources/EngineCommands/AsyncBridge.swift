import Dispatch

/// Runs async library work from the synchronous commands: the work runs in a detached task and
/// the calling thread waits for it.
enum AsyncBridge {
    private final class Box<T>: @unchecked Sendable {
        var result: Result<T, any Error>?
    }

    static func run<T>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let box = Box<T>()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do {
                box.result = .success(try await body())
            } catch {
                box.result = .failure(error)
            }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }
}
