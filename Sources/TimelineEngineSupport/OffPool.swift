import Dispatch

/// Runs blocking work (file I/O on a share that may hang, a wait on a lock) on a dispatch queue
/// of its own and suspends the caller until it is done, so that no thread of Swift's
/// cooperative pool (two, on two cores) is held while it blocks.
public enum OffPool {
    private static let queue = DispatchQueue(label: "timeline-engine.blocking-work", qos: .utility, attributes: .concurrent)

    public static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(E) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
