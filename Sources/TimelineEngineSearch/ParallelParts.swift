import Dispatch
import Foundation
import TimelineEngineCore
import TimelineEngineSupport

/// Runs one function per part of a job in parallel (`ParallelWork`, threads of their own) and
/// keeps each part's result. CPU work only: no part waits on anything.
final class ParallelParts<Result>: Sendable {
    /// Each part writes only its own slot; `results` is read after `run` returns, when every
    /// part has finished.
    private let slots: Locked<[Result?]>
    private let count: Int

    init(count: Int) {
        self.count = count
        slots = Locked(Array(repeating: nil, count: count))
    }

    /// Runs `work` for parts 0..<count, in parallel when there is more than one.
    func run(_ work: @Sendable (Int) -> Result) {
        if count == 1 {
            let result = work(0)
            slots.withLock { $0[0] = result }
            return
        }
        ParallelWork.perform(count: count) { part in
            let result = work(part)
            slots.withLock { $0[part] = result }
        }
    }

    /// Every part's result, in part order.
    var results: [Result] { slots.withLock { $0.map { $0! } } }
}

/// A fixed-size buffer that parallel parts write at disjoint positions, then read as an array.
final class SharedBuffer<Element>: @unchecked Sendable {
    // @unchecked: the parts of a `ParallelParts` run write disjoint positions only, and the
    // buffer is read after the run, when every write has finished.
    private let storage: UnsafeMutableBufferPointer<Element>
    /// Whether `detach` handed the memory over, so that `deinit` leaves it.
    private var detached = false

    init(count: Int, initial: Element) {
        storage = .allocate(capacity: max(1, count))
        storage.initialize(repeating: initial)
        self.count = count
    }

    /// A buffer of `count` elements left as the allocator gave them, for parts that write every
    /// position before anything reads it: the pages are first touched by the parts, on every
    /// core, instead of being filled on one beforehand.
    init(uninitializedCount count: Int) where Element: BitwiseCopyable {
        storage = .allocate(capacity: max(1, count))
        self.count = count
    }

    let count: Int

    subscript(index: Int) -> Element {
        get { storage[index] }
        set { storage[index] = newValue }
    }

    /// The elements, whose memory the caller frees from now on (with `deallocate()` on the
    /// base address; the elements are trivial types).
    func detach() -> UnsafeMutableBufferPointer<Element> {
        detached = true
        return UnsafeMutableBufferPointer(rebasing: storage[..<count])
    }

    deinit {
        guard !detached else { return }
        storage.deinitialize()
        storage.deallocate()
    }
}
