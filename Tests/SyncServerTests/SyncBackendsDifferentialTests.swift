import CausalFurthest
import Directory
import Foundation
import HTTP
import NIOHTTP
import PositionSync
import SyncModel
import SyncServer
import Testing
import TestSupport
import TimelineCore
import TimelineStore

/// One random history of saves, resets and sync rounds, played on every way the engine keeps
/// and moves positions: replicas in memory exchanging states, SQLite stores syncing through a
/// shared folder, through the sync server on SQLite and through the sync server on PostgreSQL
/// (when ENGINE_TEST_POSTGRES_URL is set). After every step each backend must hold what a
/// small reference, written here from the model's definition, says: a write is its device's
/// next sequence number and carries the latest sequence it has seen of every other device in
/// its register; a round leaves the device with, per register and device, the write of highest
/// sequence among its own and every device's published ones, whatever arrives late. At the end
/// every device of every backend holds the same heads, and the merge policy reads the same
/// position from them.
@Suite("Sync backends agree", .timeLimit(.minutes(5)))
struct SyncBackendsDifferentialTests {
    static let timelines = ["home", "lists/1"]
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    static let devices = ["laptop", "phone", "tablet"]

    /// What a step of a history does.
    enum Step {
        /// A save on `device` in timeline `timeline` of post `post` (nil: forget the position),
        /// `explicit` for a move back on purpose, the post created `minute` minutes after the start.
        case save(device: Int, timeline: Int, post: String?, explicit: Bool, minute: Int)
        /// A sync round of `device`.
        case sync(device: Int)
        /// The `round`-th publication of `device` (counted from its first, modulo how many it
        /// made) delivered again, late: a retried request that arrives after a newer one.
        case redeliver(device: Int, round: Int)
    }

    /// A seeded draw.
    struct Draw {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(max(1, bound)))
        }
    }

    /// A history of `length` steps, each with the seconds since the start at which it happens,
    /// then two rounds of every device, one after the other.
    static func history(seed: Int, length: Int = 30) -> [(step: Step, at: Date)] {
        var draw = Draw(state: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        var seconds = 0.0
        var steps: [(Step, Date)] = []
        for number in 0..<length {
            seconds += Double(1 + draw.next(90))
            let device = draw.next(devices.count), timeline = draw.next(4) == 0 ? 1 : 0
            let at = start.addingTimeInterval(seconds)
            switch draw.next(12) {
            case 0..<4: steps.append((.sync(device: device), at))
            case 4: steps.append((.save(device: device, timeline: timeline, post: nil, explicit: true, minute: 0), at))
            case 5: steps.append((.save(device: device, timeline: timeline, post: "p\(number)", explicit: true, minute: draw.next(600)), at))
            case 6: steps.append((.redeliver(device: device, round: draw.next(8)), at))
            default: steps.append((.save(device: device, timeline: timeline, post: "p\(number)", explicit: false, minute: draw.next(600)), at))
            }
        }
        for device in Array(devices.indices) + Array(devices.indices) {
            seconds += 1
            steps.append((.sync(device: device), start.addingTimeInterval(seconds)))
        }
        return steps
    }

    // MARK: The reference

    /// A head as the reference knows it: its sequence and post ("-" when forgotten). The
    /// reference names a head "timeline/device".
    struct Head: Equatable, CustomStringConvertible {
        let sequence: UInt64
        let post: String
        var description: String { "\(post)#\(sequence)" }
    }

    /// The model's definition, on plain dictionaries.
    struct Reference {
        var known: [[String: Head]] = Array(repeating: [:], count: devices.count)
        var published: [String: Head] = [:]
        var sequences: [UInt64] = Array(repeating: 0, count: devices.count)

        /// The write's sequence and context: the other devices' heads in its register.
        mutating func save(device: Int, timeline: String, post: String?) -> (sequence: UInt64, context: [String: UInt64]) {
            sequences[device] += 1
            var context: [String: UInt64] = [:]
            for (name, head) in known[device] where name.hasPrefix("\(timeline)/") && name != "\(timeline)/\(devices[device])" {
                context[String(name.dropFirst(timeline.count + 1))] = head.sequence
            }
            known[device]["\(timeline)/\(devices[device])"] = Head(sequence: sequences[device], post: post ?? "-")
            return (sequences[device], context)
        }

        mutating func sync(device: Int) {
            for (name, head) in known[device] where name.hasSuffix("/\(devices[device])") { published[name] = head }
            for (name, head) in published where (known[device][name]?.sequence ?? 0) < head.sequence { known[device][name] = head }
        }
    }

    static func heads(_ registers: [Register]) -> [String: Head] {
        Dictionary(uniqueKeysWithValues: registers.flatMap(\.heads).map {
            ("\($0.key.timeline)/\($0.device)", Head(sequence: $0.sequence, post: $0.snapshot?.postId ?? "-"))
        })
    }

    static func key(_ timeline: Int) -> RegisterKey { RegisterKey(account: "me", timeline: timelines[timeline]) }

    static func context(_ record: PositionRecord) -> [String: UInt64] {
        Dictionary(uniqueKeysWithValues: record.context.entries.map { ($0.device, $0.sequence) })
    }

    // MARK: The backends

    /// A way of keeping positions on three devices and moving them between them.
    protocol Backend {
        var name: String { get }
        mutating func save(device: Int, timeline: Int, _ snapshot: PositionSnapshot?, explicit: Bool, at date: Date) async throws -> PositionRecord
        mutating func sync(device: Int, at date: Date) async throws
        /// Delivers the `round`-th publication of `device` again (modulo how many it made); false
        /// when the backend cannot be sent an old one (a folder holds each device's latest file).
        mutating func redeliver(device: Int, round: Int) async throws -> Bool
        /// The device's registers, one per timeline.
        func registers(device: Int) async throws -> [Register]
    }

    /// Replicas in memory, as a replayed session keeps them: a clock, a write counter, clock
    /// estimates and a `ReplicaState` per device; a round publishes the device's own heads and
    /// takes in everyone's.
    struct MemoryBackend: Backend {
        struct Replica {
            var clock = HybridClock()
            var sequence: UInt64 = 0
            var estimates = ClockEstimates()
            var state = ReplicaState()
        }

        let name = "in memory"
        var replicas = Array(repeating: Replica(), count: devices.count)
        /// What the devices published: per device, its latest write by sequence, as the server keeps them.
        var published = ReplicaState()
        var publications: [[[PositionRecord]]] = Array(repeating: [], count: devices.count)

        static func wall(_ date: Date) -> UInt64 { UInt64(date.timeIntervalSince1970 * 1000) }

        mutating func save(device: Int, timeline: Int, _ snapshot: PositionSnapshot?, explicit: Bool, at date: Date) async throws -> PositionRecord {
            let key = SyncBackendsDifferentialTests.key(timeline)
            var replica = replicas[device]
            let stamp = RegisterStamp(time: replica.clock.tick(wall: Self.wall(date)), device: devices[device])
            replica.sequence += 1
            let saved = snapshot.map { snapshot -> PositionSnapshot in
                var stamped = snapshot
                stamped.savedAt = date
                stamped.deviceId = devices[device]
                return stamped
            }
            let record = replica.state[key].localWrite(saved, key: key, stamp: stamp, sequence: replica.sequence, savedAt: date, explicit: explicit,
                                                       clocks: replica.estimates.offsets)
            replica.state.apply(record)
            replicas[device] = replica
            return record
        }

        mutating func sync(device: Int, at date: Date) async throws {
            var replica = replicas[device]
            let wall = Self.wall(date)
            for register in published.registers.values {
                for record in register.heads {
                    _ = replica.clock.observe(record.stamp.time, wall: wall)
                    if replica.state.apply(record), record.device != devices[device] {
                        replica.estimates.observe(device: record.device, stamp: record.stamp.time, wall: wall)
                    }
                }
            }
            let own = replica.state.registers.values.compactMap { $0.head(of: devices[device]) }
            published.apply(contentsOf: own)
            publications[device].append(own)
            replicas[device] = replica
        }

        mutating func redeliver(device: Int, round: Int) async throws -> Bool {
            guard !publications[device].isEmpty else { return true }
            published.apply(contentsOf: publications[device][round % publications[device].count])
            return true
        }

        func registers(device: Int) async throws -> [Register] { timelines.indices.map { replicas[device].state[key($0)] } }
    }

    /// A transport that keeps every publication it sent, to send one again.
    actor Recording: SyncTransport {
        let inner: any SyncTransport
        var sent: [SyncPublication] = []
        nonisolated var name: String { inner.name }

        init(_ inner: any SyncTransport) { self.inner = inner }

        func pull(device: String) async throws(SyncTransportError) -> SyncPull { try await inner.pull(device: device) }

        func push(_ publication: SyncPublication) async throws(SyncTransportError) {
            try await inner.push(publication)
            sent.append(publication)
        }

        func again(_ round: Int) async throws(SyncTransportError) {
            guard !sent.isEmpty else { return }
            try await inner.push(sent[round % sent.count])
        }
    }

    /// SQLite stores, one per device, synced by `SyncRound` over a transport.
    struct StoreBackend: Backend {
        let name: String
        let stores: [TimelineStore]
        let rounds: [SyncRound]
        let transports: [Recording]
        /// Whether an old publication can be delivered again.
        let redelivers: Bool

        init(name: String, directory: URL, redelivers: Bool, transport: (Int) -> any SyncTransport) throws {
            self.name = name
            self.redelivers = redelivers
            let transports = devices.indices.map { Recording(transport($0)) }
            self.transports = transports
            let stores = try devices.map { try TimelineStore(path: directory.appendingPathComponent("\(name)-\($0).sqlite").path) }
            self.stores = stores
            rounds = devices.indices.map { index in
                SyncRound(store: stores[index], components: .with(policy: CausalFurthestPolicy(), transport: transports[index]), device: devices[index],
                          gracePeriod: 30 * 86_400)
            }
        }

        func save(device: Int, timeline: Int, _ snapshot: PositionSnapshot?, explicit: Bool, at date: Date) async throws -> PositionRecord {
            let scope = StoreScope(account: "me", timeline: timelines[timeline])
            guard let snapshot else { return try stores[device].forgetPosition(scope: scope, device: devices[device], at: date) }
            return try stores[device].savePosition(snapshot, scope: scope, device: devices[device], explicit: explicit, at: date)
        }

        func sync(device: Int, at date: Date) async throws {
            _ = try await rounds[device].run(at: date)
        }

        func redeliver(device: Int, round: Int) async throws -> Bool {
            guard redelivers else { return false }
            try await transports[device].again(round)
            return true
        }

        func registers(device: Int) async throws -> [Register] { try timelines.indices.map { try stores[device].register(of: key($0)) } }
    }

    // MARK: The check

    /// Plays `history` on `backend` against the reference; the final registers, per device.
    static func play(_ history: [(step: Step, at: Date)], on backend: inout some Backend, seed: Int,
                     redelivered: inout Int) async throws -> [[Register]] {
        var reference = Reference()
        for (number, (step, date)) in history.enumerated() {
            let label = "seed \(seed), \(backend.name), step \(number)"
            switch step {
            case .save(let device, let timeline, let post, let explicit, let minute):
                let snapshot = post.map { PositionSnapshot(postId: $0, postCreatedAt: start.addingTimeInterval(Double(minute * 60))) }
                let record = try await backend.save(device: device, timeline: timeline, snapshot, explicit: explicit, at: date)
                let expected = reference.save(device: device, timeline: timelines[timeline], post: post)
                #expect(record.sequence == expected.sequence, "\(label): the write's sequence")
                #expect(context(record) == expected.context, "\(label): the write's context")
                #expect(record.stamp.time.milliseconds == UInt64(date.timeIntervalSince1970 * 1000), "\(label): the write's stamp")
                #expect(heads(try await backend.registers(device: device)) == reference.known[device], "\(label): heads after the save")
            case .sync(let device):
                try await backend.sync(device: device, at: date)
                reference.sync(device: device)
                #expect(heads(try await backend.registers(device: device)) == reference.known[device], "\(label): heads after the round")
            case .redeliver(let device, let round):
                // Old news changes no head the reference knows of.
                if try await backend.redeliver(device: device, round: round) { redelivered += 1 }
            }
        }
        var registers: [[Register]] = []
        for device in devices.indices { registers.append(try await backend.registers(device: device)) }
        return registers
    }

    @Test("random histories: in memory, over a folder, through the server on SQLite and on PostgreSQL, every step as the reference says")
    func backendsAgree() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var servers: [(name: String, harness: ServerHarness)] = [
            ("server on SQLite", try await ServerHarness.start(try SQLiteRegisterStorage(path: directory.appendingPathComponent("server.sqlite").path))),
        ]
        do {
            if let postgresTestURL {
                servers.append(("server on PostgreSQL", try await ServerHarness.start(try PostgresServerTests.storage())))
            }
            let policy = CausalFurthestPolicy()
            var outcomes: [String: Int] = [:]
            var redelivered = 0
            for seed in 0..<24 {
                let history = Self.history(seed: seed)
                let folder = directory.appendingPathComponent("shared-\(seed)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                var memory = MemoryBackend()
                var backends: [(String, [[Register]])] = [(memory.name, try await Self.play(history, on: &memory, seed: seed, redelivered: &redelivered))]
                var overFolder = try StoreBackend(name: "folder-\(seed)", directory: directory, redelivers: false) { _ in
                    DirectoryTransport(path: folder.path, pollInterval: nil)
                }
                backends.append(("over a folder", try await Self.play(history, on: &overFolder, seed: seed, redelivered: &redelivered)))
                for (name, harness) in servers {
                    let token = try await harness.token(for: PostgresServerTests.user("differential-\(seed)"))
                    let base = URL(string: "http://127.0.0.1:\(harness.port)")!
                    var throughServer = try StoreBackend(name: "\(name.split(separator: " ").last!)-\(seed)", directory: directory, redelivers: true) { _ in
                        HTTPTransport(base: base, environment: { ["ENGINE_SYNC_TOKEN": token] }, exchange: NIOHTTPExchange())
                    }
                    backends.append((name, try await Self.play(history, on: &throughServer, seed: seed, redelivered: &redelivered)))
                }
                // Everyone heard everyone: one set of heads, one position per timeline, on every device of every backend.
                let (firstName, first) = backends[0]
                for timeline in Self.timelines.indices {
                    let expected = policy.resolve(first[0][timeline])
                    for (name, registers) in backends {
                        for (device, deviceRegisters) in zip(Self.devices, registers) {
                            let register = deviceRegisters[timeline], label = "seed \(seed): \(name), \(device), \(Self.timelines[timeline])"
                            #expect(Self.heads([register]) == Self.heads([first[0][timeline]]), "\(label): heads differ from \(firstName)")
                            #expect(register.heads.map(\.stamp) == first[0][timeline].heads.map(\.stamp), "\(label): stamps")
                            #expect(register.heads.map(\.context) == first[0][timeline].heads.map(\.context), "\(label): contexts")
                            let resolution = policy.resolve(register)
                            #expect(resolution.winner?.stamp == expected.winner?.stamp && resolution.reason == expected.reason,
                                    "\(label): \(resolution.reason) against \(expected.reason) in \(firstName)")
                        }
                    }
                    outcomes[expected.reason, default: 0] += 1
                }
            }
            // The histories reach more than one of the policy's cases, and old news arrives late.
            #expect(outcomes.count >= 2, "\(outcomes)")
            #expect(redelivered > 0)
        } catch {
            for (_, harness) in servers { try? await harness.stop() }
            throw error
        }
        for (_, harness) in servers { try await harness.stop() }
    }
}
