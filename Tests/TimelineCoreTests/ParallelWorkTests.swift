import Foundation
import Testing
import TimelineEngineSupport

/// `ParallelWork`, which the comparison runner and the text index split CPU work with: every
/// part runs on a thread of its own, so none takes one of the cooperative pool's threads. With
/// `DispatchQueue.concurrentPerform` the parts ran on the pool's threads (two here), and a
/// comparison with two jobs kept the test run's other tasks waiting for minutes.
@Suite("Parallel work beside the cooperative pool", .timeLimit(.minutes(2)))
struct ParallelWorkTests {
    /// Parts that each hold their thread until all `count` have started: they end at once when
    /// each has a thread of its own, and after `seconds` without the others when they share a
    /// pool of fewer threads (the cooperative pool has one per core).
    static func partsMeeting(_ count: Int, seconds: Double = 20) -> (part: @Sendable (Int) -> Void, met: @Sendable () -> [Int]) {
        let started = Locked(0)
        let met = Locked<[Int]>([])
        let part: @Sendable (Int) -> Void = { part in
            started.withLock { $0 += 1 }
            let end = ContinuousClock.now + .seconds(seconds)
            while started.withLock({ $0 }) < count, ContinuousClock.now < end {
                usleep(1_000)  // off-pool: a part's own thread, or the synchronous caller's, itself a thread of its own
            }
            if started.withLock({ $0 }) == count { met.withLock { $0.append(part) } }
        }
        return (part, { met.withLock { $0.sorted() } })
    }

    @Test("the asynchronous form: more parts than cores, each on a thread of its own, all at once")
    func asynchronous() async {
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let (part, met) = Self.partsMeeting(count)
        await ParallelWork.run(count: count, part)
        #expect(met() == Array(0..<count))
    }

    @Test("the synchronous form: the caller works part 0, the others run on threads of their own, all at once")
    func synchronous() async {
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let (part, met) = Self.partsMeeting(count)
        // The synchronous caller waits for the others with its thread: here a thread of its own,
        // not one of the test run's two pool threads.
        await ParallelWork.run(count: 1) { _ in ParallelWork.perform(count: count, part) }
        #expect(met() == Array(0..<count))
    }

    @Test("every part runs once, with its own number; none and one run in place")
    func everyPartOnce() async {
        for count in [0, 1, 2, 7] {
            let ran = Locked<[Int]>([])
            await ParallelWork.run(count: count) { part in ran.withLock { $0.append(part) } }
            #expect(ran.withLock { $0.sorted() } == Array(0..<count))
            let performed = Locked<[Int]>([])
            ParallelWork.perform(count: count) { part in performed.withLock { $0.append(part) } }
            #expect(performed.withLock { $0.sorted() } == Array(0..<count))
        }
    }
}
