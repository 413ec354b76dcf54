#if SyncServer
import TimelineEngineCausalFurthest
import TimelineEngineDirectory
import TimelineEngineConfiguration
import Foundation
import TimelineEngineHTTP
import TimelineEngineNIOHTTP
import TimelineEnginePositionSync
import TimelineEngineSyncSealing
import TimelineEngineSyncModel
import TimelineEngineSyncServer
import Testing
import TimelineEngineTestSupport
import TimelineEngineCore
import TimelineEngineStore

/// One random history of saves, resets and sync rounds, played on every way the engine keeps
/// and moves positions: replicas in memory exchanging states, SQLite stores syncing through a
/// shared folder, through the sync server on SQLite and through the sync server on PostgreSQL
/// (when ENGINE_TEST_POSTGRES_URL is set), and, for every other history, the folder and the
/// servers again with every head sealed end to end (`SyncKeyring`). Histories have 2 to 6 devices with clocks off by up
/// to a day either way, some one device fifty years ahead, and rounds whose pull or push is
/// lost, or whose old publication arrives again late.
///
/// After every step each backend must hold what a small reference, written here from the
/// model's definition, says: a write is its device's next sequence number and carries the
/// latest sequence it has seen of every other device in its register; a round leaves the
/// device with, per register and device, the write of highest sequence among its own and every
/// device's published ones. At the end every device of every backend holds the same heads, with
/// the same stamps and contexts, and the merge policy reads the same position from them.
@Suite("Sync backends agree", .timeLimit(.minutes(10)))
struct SyncBackendsDifferentialTests {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    static let timelines = ["home", "lists/1"]
    static let day: TimeInterval = 86_400
    static let fiftyYears = 50 * 365.25 * day

    /// What a round loses.
    enum Loss: Equatable {
        case nothing, pull, push
    }

    /// What a step of a history does.
    enum Step {
        /// A save on `device` in timeline `timeline` of post `post` (nil: forget the position),
        /// `explicit` for a move back on purpose, the post created `minute` minutes after the start.
        case save(device: Int, timeline: Int, post: String?, explicit: Bool, minute: Int)
        /// A sync round of `device`, which may lose what it pulled or what it pushed.
        case sync(device: Int, loss: Loss)
        /// The `round`-th publication of `device` (counted from its first, modulo how many it
        /// made) delivered again, late: a retried request that arrives after a newer one.
        case redeliver(device: Int, round: Int)
    }

    /// Devices with their clocks' errors, and what happens, each step at a true time.
    struct History {
        var devices: [String]
        var skews: [TimeInterval]
        var steps: [(step: Step, at: Date)]

        /// What `device`'s clock reads at true time `date`.
        func wall(_ device: Int, _ date: Date) -> Date { date.addingTimeInterval(skews[device]) }
    }

    /// A seeded draw.
    struct Draw {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(1, bound)))
        }
    }

    /// A history of `length` steps a minute or so apart, then two rounds of every device, one
    /// after the other, that lose nothing.
    static func history(seed: Int, length: Int = 36) -> History {
        var draw = Draw(state: UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        let count = 2 + draw.next(5)
        let devices = ["laptop", "phone", "tablet", "watch", "desktop", "tv"].prefix(count).map { $0 }
        var skews = devices.map { _ in Double(draw.next(2 * 86_400_000 + 1) - 86_400_000) / 1000 }
        if seed % 3 == 0 { skews[draw.next(count)] = fiftyYears }
        var seconds = 0.0
        var steps: [(Step, Date)] = []
        for number in 0..<length {
            seconds += Double(1 + draw.next(90))
            let device = draw.next(count)
            let timeline = draw.next(4) == 0 ? 1 : 0
            let at = start.addingTimeInterval(seconds)
            switch draw.next(14) {
            case 0..<4: steps.append((.sync(device: device, loss: .nothing), at))
            case 4: steps.append((.sync(device: device, loss: draw.next(2) == 0 ? .pull : .push), at))
            case 5: steps.append((.save(device: device, timeline: timeline, post: nil, explicit: true, minute: 0), at))
            case 6: steps.append((.save(device: device, timeline: timeline, post: "p\(number)", explicit: true, minute: draw.next(600)), at))
            case 7: steps.append((.redeliver(device: device, round: draw.next(8)), at))
            default: steps.append((.save(device: device, timeline: timeline, post: "p\(number)", explicit: false, minute: draw.next(600)), at))
            }
        }
        // Three rounds of every device: the first spreads every write, the second lets the
        // earliest devices hear the latest, and the third carries the clock bounds the second
        // taught (a device publishes its head again with them, `Register.clocksRepublished`).
        for device in Array(0..<count) + Array(0..<count) + Array(0..<count) {
            seconds += 1
            steps.append((.sync(device: device, loss: .nothing), start.addingTimeInterval(seconds)))
        }
        return History(devices: devices, skews: skews, steps: steps)
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
        let devices: [String]
        var known: [[String: Head]]
        var published: [String: Head] = [:]
        var sequences: [UInt64]

        init(devices: [String]) {
            self.devices = devices
            known = Array(repeating: [:], count: devices.count)
            sequences = Array(repeating: 0, count: devices.count)
        }

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

        /// A round: it pulls before it pushes.
        mutating func sync(device: Int, loss: Loss) {
            if loss != .pull {
                for (name, head) in published where (known[device][name]?.sequence ?? 0) < head.sequence { known[device][name] = head }
            }
            if loss != .push {
                for (name, head) in known[device] where name.hasSuffix("/\(devices[device])") { published[name] = head }
            }
        }
    }

    static func heads(_ registers: [Register]) -> [String: Head] {
        Dictionary(
            uniqueKeysWithValues: registers.flatMap(\.heads).map {
                ("\($0.key.timeline)/\($0.device)", Head(sequence: $0.sequence, post: $0.snapshot?.postId ?? "-"))
            })
    }

    static func context(_ record: PositionRecord) -> [String: UInt64] {
        Dictionary(uniqueKeysWithValues: record.context.entries.map { ($0.device, $0.sequence) })
    }

    static func key(_ timeline: Int) -> RegisterKey { RegisterKey(account: "me", timeline: timelines[timeline]) }

    // MARK: The backends

    /// A way of keeping positions on several devices and moving them between them.
    protocol Backend {
        var name: String { get }
        mutating func save(device: Int, timeline: Int, _ snapshot: PositionSnapshot?, explicit: Bool, at wall: Date) async throws
            -> PositionRecord
        mutating func sync(device: Int, loss: Loss, at wall: Date) async throws
        /// Delivers the `round`-th publication of `device` again (modulo how many it made); false
        /// when the backend cannot be sent an old one (a folder holds each device's latest file).
        mutating func redeliver(device: Int, round: Int) async throws -> Bool
        /// The device's registers, one per timeline.
        func registers(device: Int) async throws -> [Register]
    }

    /// Replicas in memory, as a replayed session keeps them: a clock, a write counter, clock
    /// estimates and a `ReplicaState` per device; a round takes in what every device published,
    /// then publishes the device's own heads.
    struct MemoryBackend: Backend {
        struct Replica {
            var clock = HybridClock()
            var sequence: UInt64 = 0
            var estimates = ClockEstimates()
            var state = ReplicaState()
            /// Per timeline, the posts read with their digests, the latest last (a post read again
            /// moves to the end).
            var reads: [String: [(id: String, digest: ReadDigest)]] = [:]
        }

        let name = "in memory"
        let devices: [String]
        var replicas: [Replica]
        /// What the devices published: per device, its latest write by sequence, as the server keeps them.
        var published = ReplicaState()
        var publications: [[[PositionRecord]]]

        init(devices: [String]) {
            self.devices = devices
            replicas = Array(repeating: Replica(), count: devices.count)
            publications = Array(repeating: [], count: devices.count)
        }

        static func milliseconds(_ date: Date) -> UInt64 { UInt64(date.timeIntervalSince1970 * 1000) }

        mutating func save(device: Int, timeline: Int, _ snapshot: PositionSnapshot?, explicit: Bool, at wall: Date) async throws
            -> PositionRecord
        {
            let key = SyncBackendsDifferentialTests.key(timeline)
            var replica = replicas[device]
            let stamp = RegisterStamp(time: replica.clock.tick(wall: Self.milliseconds(wall)), device: devices[device])
            replica.sequence += 1
            let saved = snapshot.map { snapshot -> PositionSnapshot in
                var stamped = snapshot
                stamped.savedAt = wall
                stamped.deviceId = devices[device]
                return stamped
            }
            // The post is read first, as the store backends do; the write carries the latest reads.
            if let id = snapshot?.postId {
                let digest = ReadDigest(
                    post: ReadPosts.digest(of: id),
                    content: ReadDigest.content(author: "ann", fingerprint: ContentFingerprint("the post \(id) of the day")!))
                replica.reads[key.timeline, default: []].removeAll { $0.id == id }
                replica.reads[key.timeline, default: []].append((id, digest))
            }
            let reads = (replica.reads[key.timeline] ?? []).suffix(PositionRecord.maximumReads).map(\.digest)
            let record = replica.state[key].localWrite(
                saved, key: key, stamp: stamp, sequence: replica.sequence, savedAt: wall, explicit: explicit,
                clocks: replica.estimates.offsets, reads: reads)
            replica.state.apply(record)
            replicas[device] = replica
            return record
        }

        mutating func sync(device: Int, loss: Loss, at wall: Date) async throws {
            var replica = replicas[device]
            if loss != .pull {
                replica.state.receive(
                    published.registers.values.flatMap(\.heads), on: devices[device], clock: &replica.clock,
                    estimates: &replica.estimates, wall: Self.milliseconds(wall),
                    maxClockOffset: HybridClock.maxOffset(seconds: SyncSettings().maxClockOffset))
            }
            let own = replica.state.registers.values.compactMap { $0.head(of: devices[device]) }
            if loss != .push {
                published.apply(contentsOf: own)
                publications[device].append(own)
            }
            replicas[device] = replica
        }

        mutating func redeliver(device: Int, round: Int) async throws -> Bool {
            guard !publications[device].isEmpty else { return true }
            published.apply(contentsOf: publications[device][round % publications[device].count])
            return true
        }

        func registers(device: Int) async throws -> [Register] { timelines.indices.map { replicas[device].state[key($0)] } }
    }

    /// A transport that keeps every publication it sent, to send one again, and can lose the
    /// next pull (it answers nothing) or push (it reports success and sends nothing).
    actor Faulty: SyncTransport {
        let inner: any SyncTransport
        var sent: [SyncPublication] = []
        var loss = Loss.nothing
        nonisolated var name: String { inner.name }

        init(_ inner: any SyncTransport) { self.inner = inner }

        func lose(_ loss: Loss) { self.loss = loss }

        func pull(device: String) async throws(SyncTransportError) -> SyncPull {
            if loss == .pull { return SyncPull() }
            return try await inner.pull(device: device)
        }

        func push(_ publication: SyncPublication) async throws(SyncTransportError) {
            if loss == .push { return }
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
        let devices: [String]
        let stores: [TimelineStore]
        let rounds: [SyncRound]
        let transports: [Faulty]
        /// Whether an old publication can be delivered again.
        let redelivers: Bool

        init(name: String, devices: [String], directory: URL, redelivers: Bool, transport: () -> any SyncTransport) async throws {
            self.name = name
            self.devices = devices
            self.redelivers = redelivers
            let transports = devices.map { _ in Faulty(transport()) }
            self.transports = transports
            var stores: [TimelineStore] = []
            for device in devices { stores.append(try await TimelineStore(path: directory.appendingPathComponent("\(name)-\(device).sqlite").path)) }
            self.stores = stores
            rounds = devices.indices.map { index in
                SyncRound(
                    store: stores[index], components: .with(policy: CausalFurthestPolicy(), transport: transports[index]), device: devices[index],
                    gracePeriod: 30 * 86_400)
            }
        }

        func save(device: Int, timeline: Int, _ snapshot: PositionSnapshot?, explicit: Bool, at wall: Date) async throws -> PositionRecord {
            let scope = StoreScope(account: "me", timeline: timelines[timeline])
            guard let snapshot else { return try await stores[device].sync.forgetPosition(scope: scope, device: devices[device], at: wall) }
            // The post is read first: the write carries it among its reads.
            let read = Post(id: snapshot.postId, createdAt: wall, author: "ann", text: "the post \(snapshot.postId) of the day", height: 100)
            try await stores[device].positions.markRead(posts: [read], scope: scope, at: wall)
            return try await stores[device].sync.savePosition(snapshot, scope: scope, device: devices[device], explicit: explicit, at: wall)
        }

        func sync(device: Int, loss: Loss, at wall: Date) async throws {
            await transports[device].lose(loss)
            _ = try await rounds[device].run(at: wall)
            await transports[device].lose(.nothing)
        }

        func redeliver(device: Int, round: Int) async throws -> Bool {
            guard redelivers else { return false }
            try await transports[device].again(round)
            return true
        }

        func registers(device: Int) async throws -> [Register] {
            var registers: [Register] = []
            for timeline in timelines.indices { registers.append(try await stores[device].sync.register(of: key(timeline))) }
            return registers
        }
    }

    // MARK: The check

    /// What a backend ended with: every device's registers, and the stamp of every write.
    struct Outcome {
        var registers: [[Register]] = []
        var stamps: [RegisterStamp] = []
        var redelivered = 0
    }

    /// Plays `history` on `backend` against the reference.
    static func play(_ history: History, on backend: inout some Backend, seed: Int) async throws -> Outcome {
        var reference = Reference(devices: history.devices)
        var outcome = Outcome()
        for (number, (step, date)) in history.steps.enumerated() {
            let label = "seed \(seed), \(backend.name), step \(number)"
            switch step {
            case .save(let device, let timeline, let post, let explicit, let minute):
                let snapshot = post.map { PositionSnapshot(postId: $0, postCreatedAt: start.addingTimeInterval(Double(minute * 60))) }
                let record = try await backend.save(
                    device: device, timeline: timeline, snapshot, explicit: explicit, at: history.wall(device, date))
                let expected = reference.save(device: device, timeline: timelines[timeline], post: post)
                #expect(record.sequence == expected.sequence, "\(label): the write's sequence")
                #expect(context(record) == expected.context, "\(label): the write's context")
                #expect(heads(try await backend.registers(device: device)) == reference.known[device], "\(label): heads after the save")
                outcome.stamps.append(record.stamp)
            case .sync(let device, let loss):
                try await backend.sync(device: device, loss: loss, at: history.wall(device, date))
                reference.sync(device: device, loss: loss)
                #expect(heads(try await backend.registers(device: device)) == reference.known[device], "\(label): heads after the round")
            case .redeliver(let device, let round):
                // Old news changes no head the reference knows of.
                if try await backend.redeliver(device: device, round: round) { outcome.redelivered += 1 }
            }
        }
        for device in history.devices.indices { outcome.registers.append(try await backend.registers(device: device)) }
        return outcome
    }

    @Test(
        "random histories: in memory, over a folder, through the server on SQLite and on PostgreSQL, in the clear and sealed, every step as the reference says"
    )
    func backendsAgree() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var servers: [(name: String, harness: ServerHarness)] = [
            (
                "server on SQLite",
                try await ServerHarness.start(try SQLiteRegisterStorage(path: directory.appendingPathComponent("server.sqlite").path))
            )
        ]
        do {
            if postgresTestURL != nil {
                servers.append(("server on PostgreSQL", try await ServerHarness.start(try PostgresServerTests.storage())))
            }
            let policy = CausalFurthestPolicy()
            // A key as an app supplies it: no scrypt, which the thread sanitizer makes slow.
            let keyring = SyncKeyring(current: try SyncKey(bytes: Array(repeating: 0xA5, count: SyncKey.byteCount)))
            var reasons: [String: Int] = [:]
            var (redelivered, deviceCounts, fiftyYearsAhead, republished) = (0, Set<Int>(), 0, 0)
            var sealedHistories = 0
            for seed in 0..<24 {
                let history = Self.history(seed: seed)
                deviceCounts.insert(history.devices.count)
                if history.skews.contains(Self.fiftyYears) { fiftyYearsAhead += 1 }
                let folder = directory.appendingPathComponent("shared-\(seed)")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                var memory = MemoryBackend(devices: history.devices)
                var outcomes: [(String, Outcome)] = [(memory.name, try await Self.play(history, on: &memory, seed: seed))]
                var overFolder = try await StoreBackend(name: "folder-\(seed)", devices: history.devices, directory: directory, redelivers: false) {
                    DirectoryTransport(path: folder.path, pollInterval: nil)
                }
                outcomes.append(("over a folder", try await Self.play(history, on: &overFolder, seed: seed)))
                // The same, sealed end to end, on every other history (each sealed backend costs
                // as much as one in the clear, and more under the thread sanitizer).
                let sealing = seed % 2 == 0
                if sealing {
                    let sealedFolder = directory.appendingPathComponent("sealed-\(seed)")
                    try FileManager.default.createDirectory(at: sealedFolder, withIntermediateDirectories: true)
                    var overSealedFolder = try await StoreBackend(
                        name: "sealed-folder-\(seed)", devices: history.devices, directory: directory, redelivers: false
                    ) {
                        DirectoryTransport(path: sealedFolder.path, pollInterval: nil).sealing(with: keyring)
                    }
                    outcomes.append(("over a folder, sealed", try await Self.play(history, on: &overSealedFolder, seed: seed)))
                    sealedHistories += 1
                }
                for (name, harness) in servers {
                    for sealed in sealing ? [false, true] : [false] {
                        let token = try await harness.token(for: PostgresServerTests.user("differential-\(seed)"))
                        let base = URL(string: "http://127.0.0.1:\(harness.port)")!
                        var throughServer = try await StoreBackend(
                            name: "\(name.split(separator: " ").last!)-\(sealed ? "sealed-" : "")\(seed)", devices: history.devices,
                            directory: directory, redelivers: true
                        ) {
                            let transport = HTTPTransport(base: base, environment: { ["ENGINE_SYNC_TOKEN": token] }, exchange: NIOHTTPExchange())
                            return sealed ? transport.sealing(with: keyring) : transport
                        }
                        outcomes.append((sealed ? "\(name), sealed" : name, try await Self.play(history, on: &throughServer, seed: seed)))
                    }
                }
                // Everyone heard everyone: one set of heads, one position per timeline, on every
                // device of every backend; every write stamped alike.
                let (firstName, first) = outcomes[0]
                for (name, outcome) in outcomes {
                    redelivered += outcome.redelivered
                    #expect(outcome.stamps == first.stamps, "seed \(seed): \(name): the writes' stamps differ from \(firstName)")
                }
                for timeline in Self.timelines.indices {
                    let reference = first.registers[0][timeline]
                    let expected = policy.resolve(reference)
                    for (name, outcome) in outcomes {
                        for (device, registers) in zip(history.devices, outcome.registers) {
                            let register = registers[timeline]
                            let label = "seed \(seed): \(name), \(device), \(Self.timelines[timeline])"
                            #expect(Self.heads([register]) == Self.heads([reference]), "\(label): heads differ from \(firstName)")
                            #expect(register.heads.map(\.stamp) == reference.heads.map(\.stamp), "\(label): stamps")
                            #expect(register.heads.map(\.context) == reference.heads.map(\.context), "\(label): contexts")
                            #expect(register.heads.map(\.clocks) == reference.heads.map(\.clocks), "\(label): clock bounds")
                            #expect(register.heads.map(\.clocksRevision) == reference.heads.map(\.clocksRevision), "\(label): clocks revisions")
                            #expect(register.heads.map(\.reads) == reference.heads.map(\.reads), "\(label): reads")
                            #expect(register.heads.allSatisfy { $0.isTombstone || !$0.reads.isEmpty }, "\(label): reads carried")
                            let resolution = policy.resolve(register)
                            #expect(
                                resolution.winner?.stamp == expected.winner?.stamp && resolution.reason == expected.reason,
                                "\(label): \(resolution.reason) against \(expected.reason) in \(firstName)")
                        }
                    }
                    reasons[expected.reason, default: 0] += 1
                    republished += reference.heads.filter { $0.clocksRevision > 0 }.count
                }
            }
            // The histories reach several of the policy's cases, every number of devices, a
            // clock fifty years ahead, old news arriving late, and heads published again with
            // the clock bounds learned after them.
            #expect(reasons.count >= 3, "\(reasons)")
            #expect(republished > 0)
            #expect(deviceCounts == [2, 3, 4, 5, 6])
            #expect(fiftyYearsAhead >= 4)
            #expect(redelivered > 0)
            #expect(sealedHistories == 12)
        } catch {
            for (_, harness) in servers { try? await harness.stop() }
            throw error
        }
        for (_, harness) in servers { try await harness.stop() }
    }
}
#endif
