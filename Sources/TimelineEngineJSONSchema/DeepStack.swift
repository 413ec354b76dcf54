import Foundation
import TimelineEngineSupport
import TimelineEngineValueTree

/// Runs deep recursive work on a thread with a large stack.
///
/// The evaluator recurses once per level of the instance and of the schema (up to
/// `Evaluator.maximumDepth`); a document nested hundreds of levels deep, which the readers
/// accept (up to 512), would overflow the 512 KiB to 8 MiB stack a caller's thread has. The
/// stack is reserved, not committed: only the pages the work touches are used.
enum DeepStack {
    /// The reserved stack: enough for the deepest evaluation the depth limits allow.
    static let size = 512 << 20

    /// `body`'s result, computed on a thread with a `size` stack, the caller waiting.
    static func run<T>(_ body: @escaping @Sendable () -> T) -> T {
        let box = Locked<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let result = body()
            box.withLock { $0 = result }
            done.signal()
        }
        thread.stackSize = size
        thread.start()
        done.wait()
        return box.withLock { $0 }!
    }
}

extension Value {
    /// How many containers deep the value nests (0 for a scalar), counting at most to `limit`.
    func nestingDepth(limit: Int) -> Int {
        guard limit > 0 else { return 0 }
        switch content {
        case .array(let elements): return 1 + (elements.map { $0.nestingDepth(limit: limit - 1) }.max() ?? 0)
        case .dictionary(let members): return 1 + (members.values.map { $0.value.nestingDepth(limit: limit - 1) }.max() ?? 0)
        default: return 0
        }
    }
}
