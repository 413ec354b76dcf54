import EngineConfiguration
import Directory
import Foundation
import FurthestRead
import LastWriterWins
import PositionSync
import StrategyKit
import SyncModel
import Testing
import TestSupport
import TimelineCore
import TimelineStore

/// Sync rounds between stores through a Directory transport, with the time given, so that the
/// grace period and the outbox can be checked without waiting.
@Suite("Sync rounds")
struct SyncRoundTests {
    static let scope = StoreScope(account: "me", timeline: "home")
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    static let day: TimeInterval = 86_400

    struct Fixture {
        let directory: URL
        let policy = FurthestReadPolicy()

        init() throws {
            directory = try Fixtures.temporaryDirectory()
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("shared"), withIntermediateDirectories: true)
        }

        func store(_ device: String) throws -> TimelineStore {
            try TimelineStore(path: directory.appendingPathComponent("\(device).sqlite").path)
        }

        func round(_ store: TimelineStore, _ device: String, grace: TimeInterval = 30 * day,
                   transport: (any SyncTransport)? = nil) throws -> SyncRound {
            var configuration = TimelineConfiguration.defaults
            configuration.sync.policy = ComponentSpec(name: "FurthestRead")
            configuration.sync.transport = ComponentSpec(name: "Directory", parameters: [
                "Path": .init(value: .string(directory.appendingPathComponent("shared").path)),
            ])
            return SyncRound(store: store, components: try SyncComponents(configuration: configuration), device: device, gracePeriod: grace)
        }

        func post(_ store: TimelineStore) throws -> String? {
            try store.replicaState().registers[RegisterKey(account: scope.account, timeline: scope.timeline)]?.snapshot?.postId
        }
    }

    static func snapshot(_ post: String, minute: Double) -> PositionSnapshot {
        PositionSnapshot(postId: post, postCreatedAt: start.addingTimeInterval(minute * 60))
    }

    @Test("a local save and its outbox entry are one transaction; the entry goes only when a push succeeded")
    func outbox() throws {
        let fixture = try Fixture()
        defer { try? FileManager.default.removeItem(at: fixture.directory) }
        let phone = try fixture.store("phone")
        try phone.savePosition(Self.snapshot("p1", minute: 1), scope: Self.scope, device: "phone", at: Self.start, policy: fixture.policy)
        #expect(try phone.pendingWrites().map(\.isTombstone) == [false])
        try FileManager.default.removeItem(at: fixture.directory.appendingPathComponent("shared"))
        #expect(throws: SyncRound.Failure.self) { try fixture.round(phone, "phone").run(at: Self.start) }
        #expect(try phone.pendingWrites().count == 1)
        try FileManager.default.createDirectory(at: fixture.directory.appendingPathComponent("shared"), withIntermediateDirectories: true)
        let report = try fixture.round(phone, "phone").run(at: Self.start)
        #expect(report.acknowledged == 1)
        #expect(try phone.pendingWrites().isEmpty)
    }

    @Test("a save that repeats this device's last write is no new write: it cannot beat a later position from another device")
    func repeatedSave() throws {
        let fixture = try Fixture()
        defer { try? FileManager.default.removeItem(at: fixture.directory) }
        let (phone, laptop) = (try fixture.store("phone"), try fixture.store("laptop"))
        let policy = LastWriterWinsPolicy()
        var p5 = Self.snapshot("p5", minute: 5)
        p5.viewportY = 12
        let first = try laptop.savePosition(p5, scope: Self.scope, device: "laptop", at: Self.start, policy: policy)
        try phone.savePosition(Self.snapshot("p9", minute: 9), scope: Self.scope, device: "phone", at: Self.start.addingTimeInterval(60), policy: policy)
        // The laptop goes to the background where it was: the same post, within half a point.
        p5.viewportY = 12.3
        let again = try laptop.savePosition(p5, scope: Self.scope, device: "laptop", at: Self.start.addingTimeInterval(120), policy: policy)
        #expect(again == first)
        #expect(try laptop.pendingWrites().count == 1)
        #expect(try laptop.history(scope: Self.scope).first?.viewportY == 12.3)
        _ = try laptop.applyRemote(try phone.replicaState().records, policy: policy, at: Self.start.addingTimeInterval(130))
        #expect(try fixture.post(laptop) == "p9")
        // Moved, even by a point, or on purpose: a new write.
        p5.viewportY = 14
        #expect(try laptop.savePosition(p5, scope: Self.scope, device: "laptop", at: Self.start.addingTimeInterval(140), policy: policy) != first)
        #expect(try fixture.post(laptop) == "p5")
        let explicit = try laptop.savePosition(p5, scope: Self.scope, device: "laptop", explicit: true, at: Self.start.addingTimeInterval(150), policy: policy)
        #expect(explicit.isReset)
    }

    @Test("a tombstone outlives its grace period on no device; one back after longer cannot bring the position back")
    func gracePeriod() throws {
        let fixture = try Fixture()
        defer { try? FileManager.default.removeItem(at: fixture.directory) }
        let phone = try fixture.store("phone"), laptop = try fixture.store("laptop")
        try phone.savePosition(Self.snapshot("p5", minute: 5), scope: Self.scope, device: "phone", at: Self.start, policy: fixture.policy)
        _ = try fixture.round(phone, "phone").run(at: Self.start)
        _ = try fixture.round(laptop, "laptop").run(at: Self.start)
        #expect(try fixture.post(laptop) == "p5")
        // The phone forgets; the laptop is away for 40 days, longer than the 30-day grace period.
        try phone.forgetPosition(scope: Self.scope, device: "phone", at: Self.start.addingTimeInterval(Self.day), policy: fixture.policy)
        _ = try fixture.round(phone, "phone").run(at: Self.start.addingTimeInterval(Self.day))
        _ = try fixture.round(phone, "phone").run(at: Self.start.addingTimeInterval(35 * Self.day))
        #expect(try phone.replicaState().registers.isEmpty, "the tombstone is purged after the grace period, and the old p5 ignored")
        // The laptop comes back: it starts again from what the others hold, so p5 does not return.
        let back = try fixture.round(laptop, "laptop").run(at: Self.start.addingTimeInterval(40 * Self.day))
        #expect(back.resynced)
        #expect(try fixture.post(laptop) == nil)
        _ = try fixture.round(phone, "phone").run(at: Self.start.addingTimeInterval(40 * Self.day))
        #expect(try fixture.post(phone) == nil)
        // Without the resync, the laptop's old state would have brought p5 back to the phone:
        // that is what the rule prevents.
    }

    @Test("a write made after hearing of a device whose clock is a day ahead still wins")
    func futureClock() throws {
        let fixture = try Fixture()
        defer { try? FileManager.default.removeItem(at: fixture.directory) }
        let phone = try fixture.store("phone"), laptop = try fixture.store("laptop")
        // The laptop's clock is a day fast; its explicit move back is stamped a day ahead.
        try laptop.savePosition(Self.snapshot("p1", minute: 1), scope: Self.scope, device: "laptop", explicit: true,
                                at: Self.start.addingTimeInterval(Self.day), policy: fixture.policy)
        _ = try fixture.round(laptop, "laptop").run(at: Self.start.addingTimeInterval(Self.day))
        _ = try fixture.round(phone, "phone").run(at: Self.start)
        #expect(try fixture.post(phone) == "p1")
        // The phone, at its own (right) time, moves back on purpose after hearing of it: it wins.
        try phone.savePosition(Self.snapshot("p0", minute: 0), scope: Self.scope, device: "phone", explicit: true, at: Self.start,
                               policy: fixture.policy)
        #expect(try fixture.post(phone) == "p0")
        _ = try fixture.round(phone, "phone").run(at: Self.start)
        _ = try fixture.round(laptop, "laptop").run(at: Self.start.addingTimeInterval(Self.day))
        #expect(try fixture.post(laptop) == "p0")
    }
}

/// The outbox under SIGKILL: a child saves and syncs in a loop and is killed at random points.
@Suite("Outbox crash safety")
struct OutboxCrashTests {
    @Test("a writer killed anywhere between a save and its acknowledgement loses nothing: every write is in the outbox or published")
    func killed() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("crash.sqlite").path
        let folder = directory.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let key = RegisterKey(account: "crash", timeline: "home")
        // A seeded choice of where to kill, so that a failure replays.
        var seed: UInt64 = 20_261_124
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        var first = 0
        for round in 1...6 {
            let writer = Process()
            writer.executableURL = Fixtures.productsDirectory.appendingPathComponent("store-crash-writer")
            writer.arguments = [path, "sync", folder.path, "\(first)"]
            let output = Pipe()
            writer.standardOutput = output
            try writer.run()
            // Let it run a few steps, then kill it somewhere inside the next one.
            var reader = LineReader(output.fileHandleForReading)
            var lastSaved = -1
            for _ in 0..<(2 + next(10)) {
                guard let line = reader.next() else { break }
                if line.hasPrefix("saved "), let number = Int(line.dropFirst(6)) { lastSaved = number }
            }
            usleep(UInt32(next(3_000)))
            kill(writer.processIdentifier, SIGKILL)
            writer.waitUntilExit()
            while let line = reader.next() {
                if line.hasPrefix("saved "), let number = Int(line.dropFirst(6)) { lastSaved = number }
            }
            let store = try TimelineStore(path: path)
            let register = try #require(try store.replicaState().registers[key], "round \(round)")
            let saved = try #require(Int(register.snapshot?.postId ?? ""), "round \(round)")
            // The store holds the last reported save, or the next one if it committed unreported.
            #expect(saved == lastSaved || saved == lastSaved + 1, "round \(round): register \(saved), last reported \(lastSaved)")
            // Not lost: the latest write is waiting in the outbox, or it is in the published file.
            let pending = try store.pendingWrites().map(\.stamp)
            let published = (try? SyncWireCoding.decode(Data(contentsOf: folder.appendingPathComponent("crash.timeline-sync.json"))))?.records ?? []
            let inFile = published.contains { $0.stamp == register.stamp }
            #expect(pending.contains(register.stamp.description) || inFile, "round \(round): the write of post \(saved) was acknowledged unpublished")
            // No duplicate: one position per device, and each outbox entry once.
            #expect(Set(pending).count == pending.count, "round \(round)")
            #expect(try store.replicaState().devicePositions(of: key).count == 1, "round \(round)")
            first = saved + 1
        }
    }

    /// Lines of a child's output, waiting at most 30 s for each.
    struct LineReader {
        let handle: FileHandle
        var buffer = Data()

        init(_ handle: FileHandle) {
            self.handle = handle
        }

        mutating func next() -> String? {
            while true {
                if let newline = buffer.firstIndex(of: 10) {
                    let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    return line
                }
                let chunk = handle.availableData
                if chunk.isEmpty { return nil }
                buffer.append(chunk)
            }
        }
    }
}

/// The coordinator an app's façade runs: debounced rounds, status, and remote events filtered
/// by the same-post deadband.
@Suite("Sync coordinator", .serialized)
struct SyncCoordinatorTests {
    static let scope = StoreScope(account: "me", timeline: "home")
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    static func configuration(_ shared: URL, debounce: Double = 0, deadband: Double = 30) -> TimelineConfiguration {
        var configuration = TimelineConfiguration.defaults
        configuration.sync.policy = ComponentSpec(name: "FurthestRead")
        configuration.sync.transport = ComponentSpec(name: "Directory", parameters: ["Path": .init(value: .string(shared.path)),
                                                                                    "PollInterval": .init(value: .integer(3600))])
        configuration.sync.debounceInterval = debounce
        configuration.sync.samePostDeadband = deadband
        return configuration
    }

    static func folder() throws -> URL {
        let directory = try Fixtures.temporaryDirectory()
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("shared"), withIntermediateDirectories: true)
        return directory
    }

    /// Waits up to 10 s for `condition`.
    static func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        for _ in 0..<1000 {
            if try condition() { return true }
            usleep(10_000)
        }
        return false
    }

    @Test("a local change is synced after DebounceInterval: 0 syncs at once, an hour not within the test")
    func debounce() throws {
        let directory = try Self.folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (debounce, expectSync) in [(0.0, true), (3600.0, false)] {
            let store = try TimelineStore(path: directory.appendingPathComponent("phone-\(Int(debounce)).sqlite").path)
            let coordinator = try SyncCoordinator(store: store, configuration: Self.configuration(directory.appendingPathComponent("shared"), debounce: debounce),
                                                  device: "phone-\(Int(debounce))", clock: { Self.start })
            defer { coordinator.stop() }
            try store.savePosition(PositionSnapshot(postId: "p1"), scope: Self.scope, device: coordinator.device, at: Self.start,
                                   policy: coordinator.policy)
            coordinator.localChange()
            coordinator.localChange()
            if expectSync {
                // The outbox empties during the round; the status follows when the round ends.
                #expect(try Self.eventually { try store.pendingWrites().isEmpty && coordinator.status == .synced(at: Self.start) })
            } else {
                usleep(300_000)
                #expect(try store.pendingWrites().count == 1, "DebounceInterval 3600: no round yet")
                #expect(coordinator.status == .idle)
            }
        }
    }

    @Test("a remote position on the post this device is on, within SamePostDeadband, raises no event; outside it, a suggestion")
    func deadband() async throws {
        for (deadband, expected) in [(30.0, 0), (5.0, 1)] {
            let directory = try Self.folder()
            defer { try? FileManager.default.removeItem(at: directory) }
            let shared = directory.appendingPathComponent("shared")
            let phoneStore = try TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
            let laptopStore = try TimelineStore(path: directory.appendingPathComponent("laptop.sqlite").path)
            let phone = try SyncCoordinator(store: phoneStore, configuration: Self.configuration(shared, debounce: 3600, deadband: deadband),
                                            device: "phone", clock: { Self.start })
            let laptop = try SyncCoordinator(store: laptopStore, configuration: Self.configuration(shared, debounce: 3600, deadband: deadband),
                                             device: "laptop", clock: { Self.start })
            defer { phone.stop(); laptop.stop() }
            let created = Self.start.addingTimeInterval(-600)
            try phoneStore.savePosition(PositionSnapshot(postId: "p1", postCreatedAt: created), scope: Self.scope, device: "phone",
                                        at: Self.start, policy: phone.policy)
            // The laptop reaches the same post 10 s later.
            try laptopStore.savePosition(PositionSnapshot(postId: "p1", postCreatedAt: created), scope: Self.scope, device: "laptop",
                                         at: Self.start.addingTimeInterval(10), policy: laptop.policy)
            let events = phone.events
            try laptop.syncNow()
            let report = try phone.syncNow()
            #expect(report.changed.count == 1, "the register moved to the laptop's write either way")
            let received = Task { () -> [RemotePositionEvent] in
                var seen: [RemotePositionEvent] = []
                for await event in events { seen.append(event); break }
                return seen
            }
            try await Task.sleep(nanoseconds: 200_000_000)
            received.cancel()
            let seen = await received.value
            #expect(seen.count == expected, "deadband \(deadband)")
            if let event = seen.first {
                #expect(event == RemotePositionEvent(account: "me", timeline: "home", postId: "p1", device: "laptop",
                                                     savedAt: Self.start.addingTimeInterval(10), action: .suggest))
            }
        }
    }

    @Test("Sync.TombstoneGracePeriod decides which writes still travel: one two days old is taken with 30 days, ignored with one")
    func gracePeriodKey() throws {
        for (grace, expected) in [(30.0 * 86_400, "p1"), (86_400.0, nil as String?)] {
            let directory = try Self.folder()
            defer { try? FileManager.default.removeItem(at: directory) }
            let shared = directory.appendingPathComponent("shared")
            var configuration = Self.configuration(shared, debounce: 3600)
            configuration.sync.tombstoneGracePeriod = grace
            let laptopStore = try TimelineStore(path: directory.appendingPathComponent("laptop.sqlite").path)
            let twoDaysAgo = Self.start.addingTimeInterval(-2 * 86_400)
            let laptop = try SyncCoordinator(store: laptopStore, configuration: Self.configuration(shared, debounce: 3600), device: "laptop",
                                             clock: { twoDaysAgo })
            defer { laptop.stop() }
            try laptopStore.savePosition(PositionSnapshot(postId: "p1"), scope: Self.scope, device: "laptop", at: twoDaysAgo, policy: laptop.policy)
            try laptop.syncNow()
            let phoneStore = try TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
            let phone = try SyncCoordinator(store: phoneStore, configuration: configuration, device: "phone", clock: { Self.start })
            defer { phone.stop() }
            try phone.syncNow()
            let key = RegisterKey(account: Self.scope.account, timeline: Self.scope.timeline)
            #expect(try phoneStore.replicaState().registers[key]?.snapshot?.postId == expected, "grace \(grace)")
        }
    }

    @Test("an unreachable folder is offline with the pending count; the status stream says so")
    func offline() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        let coordinator = try SyncCoordinator(store: store, configuration: Self.configuration(directory.appendingPathComponent("missing"), debounce: 3600),
                                              device: "phone", clock: { Self.start })
        defer { coordinator.stop() }
        try store.savePosition(PositionSnapshot(postId: "p1"), scope: Self.scope, device: "phone", at: Self.start, policy: coordinator.policy)
        #expect(throws: SyncRound.Failure.self) { try coordinator.syncNow() }
        #expect(coordinator.status == .offline(pending: 1))
    }
}
