import Foundation
import Testing
import TimelineEngineSupport
import TimelineEngineTestSupport

/// The `.ownThread` trait the long synchronous suites carry: their work leaves the cooperative
/// pool, and their expectations still count for the test.
@Suite("Tests on a thread of their own", .timeLimit(.minutes(30)))
struct OwnThreadTraitTests {
    @Test("a test under the trait runs on its own queue, before and after it awaits", .ownThread)
    func ownQueue() async {
        #expect(OwnThreadTrait.isCurrent)
        await Task.yield()
        #expect(OwnThreadTrait.isCurrent)
    }

    @Test("without the trait, a test runs on the shared pool")
    func sharedPool() {
        #expect(!OwnThreadTrait.isCurrent)
    }

    @Test("an expectation that fails under the trait is recorded against the test", .ownThread)
    func recorded() {
        withKnownIssue {
            #expect(Bool(false), "recorded on the test's own queue")
        }
    }

    @Test("long tests take turns: the second enters the lane when the first leaves, the third after it")
    func lane() async throws {
        let lane = LongTestLane(width: 1)
        let order = Locked<[String]>([])
        await lane.enter()
        let second = Task {
            await lane.enter()
            order.withLock { $0.append("second") }
            lane.leave()
        }
        // The second waits in line before the third asks.
        try await Deadline.wait(seconds: 30, "the second test waiting for its turn") { lane.waitingCount == 1 }
        let third = Task {
            await lane.enter()
            order.withLock { $0.append("third") }
            lane.leave()
        }
        try await Deadline.wait(seconds: 30, "the third test waiting for its turn") { lane.waitingCount == 2 }
        #expect(order.withLock { $0.isEmpty })
        order.withLock { $0.append("first") }
        lane.leave()
        await second.value
        await third.value
        #expect(order.withLock { $0 } == ["first", "second", "third"])
        // With the lane free, a test enters at once.
        await lane.enter()
        lane.leave()
    }

    @Test("the lane's width: ENGINE_TEST_LONG_TESTS_AT_ONCE when it is a number of at least one, else one per two cores")
    func laneWidth() {
        let byCores = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
        #expect(LongTestLane.configuredWidth(["ENGINE_TEST_LONG_TESTS_AT_ONCE": "2"]) == 2)
        #expect(LongTestLane.configuredWidth(["ENGINE_TEST_LONG_TESTS_AT_ONCE": "0"]) == byCores)
        #expect(LongTestLane.configuredWidth(["ENGINE_TEST_LONG_TESTS_AT_ONCE": "two"]) == byCores)
        #expect(LongTestLane.configuredWidth([:]) == byCores)
    }
}
