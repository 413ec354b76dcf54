import Clocks
import Foundation
import Testing
import TimelineEngineCausalFurthest
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineDirectory
import TimelineEnginePositionSync
import TimelineEngineStore
import TimelineEngineSupport
import TimelineEngineSyncModel
import TimelineEngineTestSupport

/// The coordinator an app's façade runs: rounds debounced on a virtual clock, changes heard live
/// on the transport's stream, pausing in the background, status, and remote events filtered by
/// the same-post deadband. Every timer runs on a `TestClock`; waits for work done off the clock
/// (file I/O, SQLite) have deadlines.
@Suite("Sync coordinator", .timeLimit(.minutes(10)))
struct SyncCoordinatorTests {
    static let scope = StoreScope(account: "me", timeline: "home")
    static let key = RegisterKey(account: "me", timeline: "home")
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    static func configuration(_ shared: URL, debounce: Double = 0, deadband: Double = 30) -> TimelineConfiguration {
        var configuration = TimelineConfiguration.defaults
        configuration.sync.policy = ComponentSpec(name: "CausalFurthest")
        configuration.sync.transport = ComponentSpec(
            name: "Directory",
            parameters: [
                "Path": .init(value: .string(shared.path)),
                "PollInterval": .init(value: .integer(3600)),
            ])
        configuration.sync.debounceInterval = debounce
        configuration.sync.samePostDeadband = deadband
        return configuration
    }

    /// A folder with a `shared` sync folder in it.
    static func folder() throws -> URL {
        let directory = try Fixtures.temporaryDirectory()
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("shared"), withIntermediateDirectories: true)
        return directory
    }

    /// `device`'s store in `directory`.
    static func store(_ device: String, in directory: URL) async throws -> TimelineStore {
        try await TimelineStore(path: directory.appendingPathComponent("\(device).sqlite").path)
    }

    static func coordinator(
        _ store: TimelineStore, _ configuration: TimelineConfiguration, device: String, clock: TestClock<Duration>,
        now: Date = start, jitter: Double = 0.5
    ) async throws -> SyncCoordinator {
        let coordinator = try SyncCoordinator(
            store: store, configuration: configuration, device: device, clock: clock, now: { now }, jitter: { jitter })
        try await running(coordinator)
        return coordinator
    }

    /// Starts `coordinator.run()`, which its `shutdown()` ends, and returns once it runs.
    static func running(_ coordinator: SyncCoordinator) async throws {
        Task { await coordinator.run() }
        try await Deadline.wait(seconds: 60, "the coordinator to run") { await coordinator.isRunning }
    }

    /// The next event of `events`, or nil after `seconds`.
    static func nextEvent(_ events: AsyncStream<RemotePositionEvent>, within seconds: Double) async -> RemotePositionEvent? {
        try? await Deadline.value(within: seconds, "an event") {
            var iterator = events.makeAsyncIterator()
            return await iterator.next()
        }
    }

    @Test("a local change is published after DebounceInterval on the clock, once for a burst of changes")
    func debounce() async throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock()
        let store = try await Self.store("phone", in: directory)
        let coordinator = try await Self.coordinator(
            store, Self.configuration(directory.appendingPathComponent("shared"), debounce: 3), device: "phone",
            clock: clock)
        try await store.sync.savePosition(PositionSnapshot(postId: "p1"), scope: Self.scope, device: "phone", at: Self.start)
        await coordinator.noteLocalChange()
        await clock.advance(by: .seconds(1))
        // A second change starts the interval again.
        await coordinator.noteLocalChange()
        await clock.advance(by: .seconds(2.9))
        #expect(try await store.sync.pendingWrites().count == 1, "no round before the debounce interval")
        await clock.advance(by: .seconds(0.2))
        try await Deadline.wait(seconds: 60, "the round") {
            try await store.sync.pendingWrites().isEmpty && coordinator.status == .synced(at: Self.start, wrongClocks: [])
        }
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("shared/phone.timeline-sync.json").path))
        coordinator.shutdown()
    }

    @Test("nothing runs before run(): a change asked for then is published once it runs; shutdown() ends run()")
    func lifecycle() async throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = TestClock()
        let store = try await Self.store("phone", in: directory)
        let coordinator = try SyncCoordinator(
            store: store, configuration: Self.configuration(directory.appendingPathComponent("shared"), debounce: 3), device: "phone",
            clock: clock, now: { Self.start })
        try await store.sync.savePosition(PositionSnapshot(postId: "p1"), scope: Self.scope, device: "phone", at: Self.start)
        await coordinator.noteLocalChange()
        await clock.advance(by: .seconds(10))
        #expect(await !coordinator.isRunning)
        #expect(try await store.sync.pendingWrites().count == 1, "no timer before run()")
        let running = Task { await coordinator.run() }
        try await Deadline.wait(seconds: 60, "the coordinator to run") { await coordinator.isRunning }
        await clock.advance(by: .seconds(3))
        try await Deadline.wait(seconds: 60, "the round asked for before run()") { try await store.sync.pendingWrites().isEmpty }
        coordinator.shutdown()
        try await Deadline.value(within: 30, "run() to return") { await running.value }
        #expect(await coordinator.isStopped)
        #expect(await !coordinator.isRunning)
        // After shutdown(), run() returns at once and nothing is scheduled.
        try await Deadline.value(within: 30, "a second run() to return") { await coordinator.run() }
    }

    @Test("another device's save is heard on the change stream and announced, with no round and no clock moving")
    func liveChange() async throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let shared = directory.appendingPathComponent("shared")
        let laptopStore = try await Self.store("laptop", in: directory)
        let phoneStore = try await Self.store("phone", in: directory)
        let phone = try await Self.coordinator(phoneStore, Self.configuration(shared, debounce: 3600), device: "phone", clock: TestClock())
        let events = phone.events
        let laptop = try await Self.coordinator(laptopStore, Self.configuration(shared, debounce: 3600), device: "laptop", clock: TestClock())
        try await laptopStore.sync.savePosition(PositionSnapshot(postId: "p7"), scope: Self.scope, device: "laptop", at: Self.start)
        try await laptop.syncNow()
        let event = await Self.nextEvent(events, within: 20)
        // The phone had no position: it moves there.
        #expect(
            event
                == RemotePositionEvent(
                    account: "me", timeline: "home", postId: "p7", device: "laptop", savedAt: Self.start, action: .move,
                    reason: "one device"))
        #expect(try await CausalFurthestPolicy().value(of: phoneStore.sync.register(of: Self.key))?.snapshot?.postId == "p7")
        phone.shutdown()
        laptop.shutdown()
    }

    @Test("paused in the background, the coordinator hears nothing; back in front, it pulls what came meanwhile")
    func pauseAndResume() async throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let shared = directory.appendingPathComponent("shared")
        let laptopStore = try await Self.store("laptop", in: directory)
        let phoneStore = try await Self.store("phone", in: directory)
        let phone = try await Self.coordinator(phoneStore, Self.configuration(shared, debounce: 3600), device: "phone", clock: TestClock())
        await phone.pause()
        #expect(phone.status == .paused(pending: 0))
        #expect(await phone.isPaused)
        let events = phone.events
        let laptop = try await Self.coordinator(laptopStore, Self.configuration(shared, debounce: 3600), device: "laptop", clock: TestClock())
        try await laptopStore.sync.savePosition(PositionSnapshot(postId: "p3"), scope: Self.scope, device: "laptop", at: Self.start)
        try await laptop.syncNow()
        #expect(await Self.nextEvent(events, within: 1) == nil, "paused: nothing heard")
        #expect(try await phoneStore.sync.register(of: Self.key).isEmpty)
        // (A stream whose consumer was cancelled ends: listen anew.)
        let after = phone.events
        await phone.resume()
        #expect(await Self.nextEvent(after, within: 20)?.postId == "p3")
        phone.shutdown()
        laptop.shutdown()
    }

    @Test("a remote position on the post this device is on, within SamePostDeadband, raises no event; outside it, a suggestion")
    func deadband() async throws {
        for (deadband, expected) in [(30.0, 0), (5.0, 1)] {
            let directory = try Self.folder()
            defer { try? FileManager.default.removeItem(at: directory) }
            let shared = directory.appendingPathComponent("shared")
            let phoneStore = try await Self.store("phone", in: directory)
            let laptopStore = try await Self.store("laptop", in: directory)
            let created = Self.start.addingTimeInterval(-600)
            try await phoneStore.sync.savePosition(
                PositionSnapshot(postId: "p1", postCreatedAt: created), scope: Self.scope, device: "phone", at: Self.start)
            let phone = try await Self.coordinator(
                phoneStore, Self.configuration(shared, debounce: 3600, deadband: deadband), device: "phone", clock: TestClock())
            try await phone.syncNow()
            let laptop = try await Self.coordinator(
                laptopStore, Self.configuration(shared, debounce: 3600, deadband: deadband), device: "laptop",
                clock: TestClock())
            try await laptop.syncNow()
            // The laptop, having seen the phone's, reaches the same post 10 s later.
            try await laptopStore.sync.savePosition(
                PositionSnapshot(postId: "p1", postCreatedAt: created, viewportY: 40), scope: Self.scope, device: "laptop",
                at: Self.start.addingTimeInterval(10))
            let events = phone.events
            try await laptop.syncNow()
            let seen = await Self.nextEvent(events, within: expected == 0 ? 1 : 20)
            #expect((seen == nil ? 0 : 1) == expected, "deadband \(deadband)")
            if let seen {
                #expect(
                    seen
                        == RemotePositionEvent(
                            account: "me", timeline: "home", postId: "p1", device: "laptop",
                            savedAt: Self.start.addingTimeInterval(10), action: .suggest, reason: "one live head: it saw the others"))
            }
            phone.shutdown()
            laptop.shutdown()
        }
    }

    @Test("Sync.TombstoneGracePeriod decides which writes still travel: one two days older than the newest is taken with 30 days, ignored with one")
    func gracePeriodKey() async throws {
        for (grace, expected) in [(30.0 * 86_400, "p1"), (86_400.0, nil as String?)] {
            let directory = try Self.folder()
            defer { try? FileManager.default.removeItem(at: directory) }
            let shared = directory.appendingPathComponent("shared")
            var configuration = Self.configuration(shared, debounce: 3600)
            configuration.sync.tombstoneGracePeriod = grace
            let laptopStore = try await Self.store("laptop", in: directory)
            let twoDaysAgo = Self.start.addingTimeInterval(-2 * 86_400)
            try await laptopStore.sync.savePosition(PositionSnapshot(postId: "p1"), scope: Self.scope, device: "laptop", at: twoDaysAgo)
            // The laptop was used since, in another timeline: the period runs from that write.
            try await laptopStore.sync.savePosition(
                PositionSnapshot(postId: "l1"), scope: StoreScope(account: "me", timeline: "lists"), device: "laptop",
                at: Self.start)
            let laptop = try await Self.coordinator(laptopStore, Self.configuration(shared, debounce: 3600), device: "laptop", clock: TestClock())
            try await laptop.syncNow()
            laptop.shutdown()
            let phoneStore = try await Self.store("phone", in: directory)
            let phone = try await Self.coordinator(phoneStore, configuration, device: "phone", clock: TestClock())
            try await phone.syncNow()
            phone.shutdown()
            #expect(
                try await CausalFurthestPolicy().value(of: phoneStore.sync.register(of: Self.key))?.snapshot?.postId == expected, "grace \(grace)")
        }
    }

    @Test("an unreachable folder is offline and retried when the network policy says, on the clock; a failing one is an error, not retried")
    func offlineAndRetry() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await Self.store("phone", in: directory)
        try await store.sync.savePosition(PositionSnapshot(postId: "p1"), scope: Self.scope, device: "phone", at: Self.start)
        let clock = TestClock()
        let shared = directory.appendingPathComponent("shared")
        var configuration = Self.configuration(shared, debounce: 3600)
        configuration.network.policy = ComponentSpec(name: "ExponentialBackoff")
        let coordinator = try await Self.coordinator(store, configuration, device: "phone", clock: clock, jitter: 0)
        await #expect(throws: SyncRound.Failure.self) { try await coordinator.syncNow() }
        #expect(coordinator.status == .offline(pending: 1))
        // The share is mounted; the retry runs when the clock reaches it, and sends the outbox.
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        await clock.advance(by: .seconds(3600))
        try await Deadline.wait(seconds: 60, "the retry") { try await store.sync.pendingWrites().isEmpty }
        try await Deadline.wait(seconds: 60, "the synced status") { coordinator.status == .synced(at: Self.start, wrongClocks: []) }
        coordinator.shutdown()
        // A file where the folder should be fails: an error with the transport's message, and
        // no retry (a failure another attempt cannot mend).
        let file = directory.appendingPathComponent("file")
        try Data().write(to: file)
        try await store.sync.savePosition(PositionSnapshot(postId: "p2"), scope: Self.scope, device: "phone", at: Self.start)
        let failing = try await Self.coordinator(store, Self.configuration(file, debounce: 3600), device: "phone", clock: clock)
        await #expect(throws: SyncRound.Failure.self) { try await failing.syncNow() }
        #expect(failing.status == .error(message: "\(file.path): the sync folder is not a folder", retryAt: nil))
        failing.shutdown()
    }

    @Test("a change heard while a local change is noted does not cut the debounce short")
    func heardDuringNote() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await Self.store("phone", in: directory)
        let clock = TestClock()
        let transport = DrivenTransport()
        let coordinator = try SyncCoordinator(
            store: store, components: .with(policy: CausalFurthestPolicy(), transport: transport),
            configuration: Self.configuration(directory, debounce: 3), device: "phone", clock: clock, now: { Self.start })
        try await Self.running(coordinator)
        try await Deadline.wait(seconds: 60, "the first read of the change stream") { await coordinator.mergedPulls == 1 }
        // A pull merged while the app notes its save: whichever comes first, the round waits for
        // the debounce interval. The note lands at another point of the merge each time (the
        // yields between). A merge that asked whether a timer was armed before it read the outbox
        // replaced a debounce noted during that read with a round at once: 1 round in 40 here.
        for round in 1...300 {
            try await store.sync.savePosition(
                PositionSnapshot(postId: "p\(round)"), scope: Self.scope, device: "phone", at: Self.start.addingTimeInterval(Double(round)))
            transport.hear(SyncPull())
            for _ in 0..<(round * 37 % 3000) { await Task.yield() }
            await coordinator.noteLocalChange()
            try await Deadline.wait(seconds: 60, "the pull to be merged") { await coordinator.mergedPulls == round + 1 }
            await clock.advance(by: .seconds(2.9))
            #expect(try await store.sync.pendingWrites().count == 1, "round \(round): no publication before the debounce interval")
            await clock.advance(by: .seconds(0.2))
            try await Deadline.wait(seconds: 60, "round \(round)'s publication") { try await store.sync.pendingWrites().isEmpty }
        }
        #expect(transport.pushes == 300)
        coordinator.shutdown()
    }
}

/// A transport the test drives: its change stream brings what `hear(_:)` is given; pulls bring
/// nothing, and pushes are counted.
private final class DrivenTransport: SyncTransport {
    let name = "Driven"
    private let stream = AsyncStream.makeStream(of: SyncPull.self)
    private let pushCount = Locked(0)

    var pushes: Int { pushCount.withLock { $0 } }

    func hear(_ pull: SyncPull) { stream.continuation.yield(pull) }

    func pull(device: String) async throws(SyncTransportError) -> SyncPull { SyncPull() }

    func push(_ publication: SyncPublication) async throws(SyncTransportError) { pushCount.withLock { $0 += 1 } }

    func changes(_ watch: ChangeWatch) -> AsyncStream<SyncPull> {
        stream.continuation.yield(SyncPull())
        return stream.stream
    }
}
