import Foundation
import TimelineEnginePositionSync
import TimelineEngineSupport

/// What the engine's `run()` runs, and how it stops: the position writer, the settle timer and
/// the sync coordinators (the configured one, then each a reload puts in its place). It holds no
/// reference to the engine, so that dropping the engine shuts it down.
final class EngineLifecycle: Sendable {
    private let writer: PositionWriter
    private let coordinators: AsyncStream<SyncCoordinator>
    private let newCoordinator: AsyncStream<SyncCoordinator>.Continuation
    private let settleDelays: AsyncStream<Double>
    private let settleRequest: AsyncStream<Double>.Continuation
    private let current = Locked<SyncCoordinator?>(nil)
    private let started = Locked(false)

    init(writer: PositionWriter) {
        self.writer = writer
        (coordinators, newCoordinator) = AsyncStream.makeStream()
        (settleDelays, settleRequest) = AsyncStream.makeStream()
    }

    /// Runs `coordinator` from now on, in `run()`, in place of the one before (which the caller
    /// shuts down).
    func start(_ coordinator: SyncCoordinator) {
        current.withLock { $0 = coordinator }
        newCoordinator.yield(coordinator)
    }

    /// Asks for the engine's `settle()` after `seconds` on the timers' clock.
    func settle(after seconds: Double) {
        settleRequest.yield(seconds)
    }

    /// Makes `run()` return once the writer is done; callable before it, and more than once.
    func shutdown() {
        newCoordinator.finish()
        settleRequest.finish()
        writer.finish()
        current.withLock { $0 }?.shutdown()
    }

    /// See `TimelineEngine.run()`. `settle` holds the engine's `settle()`, weakly.
    func run(timers: any Clock<Duration>, settle: Locked<(@Sendable () -> Void)?>) async {
        guard
            started.withLock({ started in
                defer { started = true }
                return !started
            })
        else { return }
        let writer = self.writer
        // Not a child task: cancelling `run()` shuts it down, and the writer then writes what
        // was saved (GRDB gives up a write whose task is cancelled).
        let writing = Task { await writer.run() }
        let (coordinators, settleDelays) = (self.coordinators, self.settleDelays)
        await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await delay in settleDelays {
                        guard (try? await timers.sleep(for: .seconds(delay))) != nil else { break }
                        settle.withLock { $0 }?()
                    }
                }
                for await coordinator in coordinators { group.addTask { await coordinator.run() } }
                // Shut down: the settle timer stops waiting, and each coordinator finishes.
                group.cancelAll()
            }
        } onCancel: {
            shutdown()
        }
        await writing.value
    }
}
