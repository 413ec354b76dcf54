import Foundation
import Testing
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineFurthestRead
import TimelineEngineICloudKeyValueStore
import TimelineEnginePositionSync
import TimelineEngineStore
import TimelineEngineSupport
import TimelineEngineSyncModel
import TimelineEngineTestSupport

/// iCloud's key-value store, modelled as Apple documents it (`UbiquitousStoreModel`): the
/// register converges over a store that overwrites unconditionally and tells devices late, and
/// `iCloudSyncEnabled` selects it where it exists.
@Suite("iCloud key-value store model", .serialized, .timeLimit(.minutes(10)))
struct ICloudModelTests {
    static let scope = StoreScope(account: "me", timeline: "home")
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    static func configuration(iCloud: Bool) -> TimelineConfiguration {
        var configuration = TimelineConfiguration.defaults
        configuration.positionPersistence.iCloudSyncEnabled = iCloud
        configuration.sync.policy = ComponentSpec(name: "FurthestRead")
        return configuration
    }

    @Test("iCloudSyncEnabled selects iCloud's store when Sync.Transport is None and the platform has it; false keeps positions here")
    func selection() async throws {
        let saved = ICloudKeyValueStoreTransport.backend.current
        defer { ICloudKeyValueStoreTransport.backend.current = saved }
        ICloudKeyValueStoreTransport.backend.current = UbiquitousStoreModel().view(for: "phone")
        #expect(try SyncComponents(configuration: Self.configuration(iCloud: true)).transportSpec.name == "iCloudKeyValueStore")
        #expect(try SyncComponents(configuration: Self.configuration(iCloud: false)).transportSpec.name == "None")
        // Where there is no store (Linux without a model), the setting cannot apply.
        ICloudKeyValueStoreTransport.backend.current = nil
        #expect(try SyncComponents(configuration: Self.configuration(iCloud: true)).transportSpec.name == "None")
    }

    @Test("three devices converge over the modelled store, though it loses concurrent writes and tells devices late")
    func convergence() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = UbiquitousStoreModel()
        let policy = FurthestReadPolicy()
        let devices = ["phone", "laptop", "tablet"]
        var stores: [String: TimelineStore] = [:]
        var rounds: [String: SyncRound] = [:]
        for device in devices {
            let store = try await TimelineStore(path: directory.appendingPathComponent("\(device).sqlite").path)
            stores[device] = store
            let components = SyncComponents.with(policy: policy, transport: ICloudKeyValueStoreTransport(store: model.view(for: device)))
            rounds[device] = SyncRound(store: store, components: components, device: device, gracePeriod: 30 * 86_400)
        }
        var seed: UInt64 = 7
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        var clock = Self.start
        for step in 0..<60 {
            clock = clock.addingTimeInterval(Double(next(90)))
            let device = devices[next(devices.count)]
            switch next(4) {
            case 0:
                let post = next(100)
                try await stores[device]!.sync.savePosition(
                    PositionSnapshot(postId: "p\(post)", postCreatedAt: Self.start.addingTimeInterval(Double(post * 60))),
                    scope: Self.scope, device: device, explicit: next(8) == 0, at: clock)
            case 1:
                _ = try await rounds[device]!.run(at: clock)
            case 2:
                // The service receives queued writes, in an order that may reverse concurrent ones.
                model.upload { a, b in (a + step) % 3 == 0 ? a > b : a < b }
            default:
                model.deliver(to: device)
            }
        }
        // Quiet: rounds, uploads and deliveries until every device has heard everything.
        for _ in 0..<3 {
            for device in devices {
                _ = try await rounds[device]!.run(at: clock)
                model.upload()
                for other in devices { model.deliver(to: other) }
            }
        }
        let key = RegisterKey(account: Self.scope.account, timeline: Self.scope.timeline)
        var heads: [[String]] = []
        var values: [String] = []
        for device in devices {
            let register = try await stores[device]!.sync.register(of: key)
            heads.append(register.heads.map(\.stamp.description))
            values.append(policy.value(of: register)?.stamp.description ?? "none")
        }
        #expect(Set(heads).count == 1, "\(heads)")
        #expect(Set(values).count == 1, "\(values)")
    }

    @Test("the change stream reads at once, and again when the store says another device's changes arrived")
    func changeStream() async throws {
        let model = UbiquitousStoreModel()
        let phone = ICloudKeyValueStoreTransport(store: model.view(for: "phone"))
        let laptop = ICloudKeyValueStoreTransport(store: model.view(for: "laptop"))
        let record = PositionRecord(
            key: RegisterKey(account: "me", timeline: "home"),
            stamp: RegisterStamp(time: HybridTimestamp(milliseconds: 1_790_000_000_000, counter: 0), device: "laptop"),
            savedAt: Self.start, snapshot: PositionSnapshot(postId: "p7"), epoch: .zero, progress: nil)
        let pulls = try await Deadline.value(within: 30, "two pulls from the change stream") {
            var iterator = phone.changes(ChangeWatch(device: "phone")).makeAsyncIterator()
            let first = await iterator.next()
            var state = ReplicaState()
            state.apply(record)
            try await laptop.push(SyncPublication(device: "laptop", state: state, policy: FurthestReadPolicy()))
            model.upload()
            model.deliver(to: "phone")
            let second = await iterator.next()
            return [first, second]
        }
        #expect(pulls[0]?.records.isEmpty == true)
        #expect(pulls[1]?.records.map(\.snapshot?.postId) == ["p7"])
    }

    @Test("a change that arrives while the stream makes its first pull is pulled again, not lost")
    func changeDuringFirstPull() async throws {
        let model = UbiquitousStoreModel()
        let laptop = ICloudKeyValueStoreTransport(store: model.view(for: "laptop"))
        let record = PositionRecord(
            key: RegisterKey(account: "me", timeline: "home"),
            stamp: RegisterStamp(time: HybridTimestamp(milliseconds: 1_790_000_000_000, counter: 0), device: "laptop"),
            savedAt: Self.start, snapshot: PositionSnapshot(postId: "p7"), epoch: .zero, progress: nil)
        var state = ReplicaState()
        state.apply(record)
        try await laptop.push(SyncPublication(device: "laptop", state: state, policy: FurthestReadPolicy()))
        model.upload()
        // The laptop's write reaches the phone just after the phone's first pull read the store.
        let phone = ICloudKeyValueStoreTransport(store: DeliveredAfterFirstRead(view: model.view(for: "phone"), model: model))
        let pulls = try await Deadline.value(within: 30, "a second pull after the change") {
            var iterator = phone.changes(ChangeWatch(device: "phone")).makeAsyncIterator()
            return [await iterator.next(), await iterator.next()]
        }
        #expect(pulls[0]?.records.isEmpty == true)
        #expect(pulls[1]?.records.map(\.snapshot?.postId) == ["p7"])
    }

    /// The phone's view of the store, delivered the service's keys right after its first read.
    struct DeliveredAfterFirstRead<View: UbiquitousKeyValueStore>: UbiquitousKeyValueStore {
        let view: View
        let model: UbiquitousStoreModel
        private let reads = Locked(0)

        init(view: View, model: UbiquitousStoreModel) {
            self.view = view
            self.model = model
        }

        func snapshot() -> [String: Data] {
            let keys = view.snapshot()
            if reads.withLock({ count in
                defer { count += 1 }
                return count
            }) == 0 {
                model.deliver(to: "phone")
            }
            return keys
        }

        func set(_ value: Data, forKey key: String) -> Bool { view.set(value, forKey: key) }
        func externalChanges() -> AsyncStream<Void> { view.externalChanges() }
    }

    @Test("writes beyond the store's documented limits are refused, and the round says so")
    func limits() async throws {
        let model = UbiquitousStoreModel()
        let transport = ICloudKeyValueStoreTransport(store: model.view(for: "phone"))
        let big = (0..<9_000).map { number in
            PositionRecord(
                key: RegisterKey(account: "me", timeline: "t\(number)"),
                stamp: RegisterStamp(time: HybridTimestamp(milliseconds: 1_790_000_000_000, counter: UInt16(number % 60_000)), device: "phone"),
                savedAt: Self.start, snapshot: PositionSnapshot(postId: "p\(number)"), epoch: .zero, progress: nil)
        }
        var state = ReplicaState()
        state.apply(contentsOf: big)
        await #expect(throws: SyncTransportError.self) {
            try await transport.push(SyncPublication(device: "phone", state: state, policy: FurthestReadPolicy()))
        }
    }
}
