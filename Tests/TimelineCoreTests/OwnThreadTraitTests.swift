import TestSupport
import Testing

/// The `.ownThread` trait the long synchronous suites carry: their work leaves the cooperative
/// pool, and their expectations still count for the test.
@Suite("Tests on a thread of their own", .timeLimit(.minutes(10)))
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
}
