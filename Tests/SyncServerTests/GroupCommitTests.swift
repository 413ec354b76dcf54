#if SyncServer
import Foundation
import TimelineEngineSyncServer
import Testing
import TimelineEngineTestSupport

/// Group commit: who waits, who leads, and what each request gets back.
@Suite("Group commit", .timeLimit(.minutes(10)))
struct GroupCommitTests {
    /// Holds the first commit until the test opens it, and records every group.
    final class Gate: @unchecked Sendable {
        // @unchecked: every property is read and written under `lock` only.
        private let lock = NSLock()
        private var open = false
        private var groups: [[Int]] = []

        func record(_ jobs: [Int]) { lock.withLock { groups.append(jobs) } }
        var recorded: [[Int]] { lock.withLock { groups } }
        func release() { lock.withLock { open = true } }
        var isOpen: Bool { lock.withLock { open } }
    }

    @Test("requests that arrive while a group commits form the next group, in arrival order, and each gets its own result")
    func groups() async throws {
        let gate = Gate()
        let commits = GroupCommit<Int, Int> { jobs in
            gate.record(jobs)
            try await Deadline.wait(seconds: 180, "the test to open the gate") { gate.isOpen }
            return jobs.map { job in job % 5 == 0 ? .failure(TestFailure(job: job)) : .success(job * 10) }
        }
        let answers = try await withThrowingTaskGroup(of: (Int, Int?).self) { tasks in
            tasks.addTask { (1, try? await commits.run(1)) }
            try await Deadline.wait(seconds: 180, "the first group to start") { gate.recorded.count == 1 }
            for job in 2...10 {
                tasks.addTask { (job, try? await commits.run(job)) }
                try await Deadline.wait(seconds: 180, "job \(job) to queue") { commits.queued == job - 1 }
            }
            gate.release()
            var answers: [Int: Int?] = [:]
            for try await (job, answer) in tasks { answers[job] = answer }
            return answers
        }
        #expect(answers == Dictionary(uniqueKeysWithValues: (1...10).map { ($0, $0 % 5 == 0 ? nil : $0 * 10) }))
        let recorded = gate.recorded
        #expect(recorded.first == [1])
        #expect(recorded.dropFirst().first == Array(2...10))
        #expect(recorded.count == 2)
    }

    struct TestFailure: Error, Equatable {
        let job: Int
    }

    @Test("a job's failure is that job's alone, and a failed commit fails its whole group")
    func failures() async throws {
        let commits = GroupCommit<Int, Int> { jobs in
            if jobs.contains(13) { throw TestFailure(job: 13) }
            return jobs.map { job in job.isMultiple(of: 2) ? .failure(TestFailure(job: job)) : .success(job) }
        }
        #expect(try await commits.run(3) == 3)
        await #expect(throws: TestFailure(job: 4)) { try await commits.run(4) }
        await #expect(throws: TestFailure(job: 13)) { try await commits.run(13) }
        #expect(try await commits.run(5) == 5)
    }

    @Test("two hundred concurrent requests, groups of at most 8: every one is answered with its own result, and none twice")
    func handOff() async throws {
        let groups = Counter()
        let commits = GroupCommit<Int, Int>(maxGroup: 8) { jobs in
            groups.increment()
            #expect(jobs.count <= 8)
            await Task.yield()
            return jobs.map { .success($0 * 2) }
        }
        let answers = try await withThrowingTaskGroup(of: (Int, Int).self) { tasks in
            for job in 0..<200 { tasks.addTask { (job, try await commits.run(job)) } }
            var answers: [Int: Int] = [:]
            for try await (job, answer) in tasks { answers[job] = answer }
            return answers
        }
        #expect(answers.count == 200)
        #expect(answers.allSatisfy { $0.value == $0.key * 2 })
        #expect(groups.value <= 200)
        #expect(commits.queued == 0)
    }
}
#endif
