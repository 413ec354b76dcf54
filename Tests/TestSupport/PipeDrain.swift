import Foundation

/// Reads a pipe to its end on a thread of its own, with blocking reads, handing each chunk on as
/// it comes. It replaces `FileHandle.readabilityHandler`, whose read source's teardown races the
/// descriptor's close in libdispatch's event loop on Linux and can crash the whole test process
/// in `_dispatch_event_loop_drain` (swiftlang/swift-corelibs-libdispatch#949): a blocking read
/// registers nothing with the event loop. The thread is not one of the cooperative pool's.
public enum PipeDrain {
    /// Starts reading `handle`: `chunk` gets every piece of data in order, then `end` runs once
    /// the writer closed its end.
    public static func start(_ handle: FileHandle, chunk: @escaping @Sendable (Data) -> Void, end: @escaping @Sendable () -> Void = {}) {
        let thread = Thread {
            while true {
                let data = handle.availableData  // off-pool: a thread of its own, blocking until data or the end
                if data.isEmpty { break }
                chunk(data)
            }
            end()
        }
        thread.name = "pipe-drain"
        thread.start()
    }
}
