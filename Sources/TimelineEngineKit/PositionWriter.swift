import Foundation
import TimelineEngineCore
import TimelineEngineSupport
import TimelineEngineSyncModel

/// The façade's serial writer: what the engine saves reaches the store in the order it was
/// saved, one job at a time, off the caller's thread. The engine's `run()` writes jobs as they
/// come; `drain()` writes what waits now (before a restore reads the store, on `flush()`, and
/// after shutdown), so that nothing saved is lost when the app does not run the engine.
final class PositionWriter: Sendable {
    /// What the writer does, in order.
    enum Job: Sendable {
        /// A saved position, with its place in the visit and the time it was saved.
        case save(PositionSnapshot, visit: PositionRecord.Visit?, at: Date)
        /// Posts that passed through the viewport, read at that time.
        case markRead([Post], at: Date)
        /// The app went to the background: sync stops listening.
        case pause
        /// The app is back: sync listens again.
        case resume
    }

    private let jobs = Locked<[Job]>([])
    private let bell: AsyncStream<Void>
    private let ring: AsyncStream<Void>.Continuation
    /// One drain at a time: a second waits for the first, then drains what is left.
    private let turn = SerialTurn()
    private let perform: @Sendable (Job) async -> Void

    /// A writer that does each job with `perform`.
    init(perform: @escaping @Sendable (Job) async -> Void) {
        (bell, ring) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.perform = perform
    }

    /// Queues `new` behind what waits; `run()` takes them soon after.
    func enqueue(_ new: [Job]) {
        guard !new.isEmpty else { return }
        jobs.withLock { $0.append(contentsOf: new) }
        ring.yield()
    }

    /// Does every job queued before this call, and those queued meanwhile, one at a time;
    /// returns when none waits.
    func drain() async {
        let (jobs, perform) = (self.jobs, self.perform)
        await turn.take {
            while let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { await perform(job) }
        }
    }

    /// Does jobs as they are queued until `finish()`, then what is left.
    func run() async {
        for await _ in bell { await drain() }
        await drain()
    }

    /// Makes `run()` return once what waits is done.
    func finish() {
        ring.finish()
    }

}
