import Configuration
import Directory
import Foundation
import FurthestRead
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
