import Foundation
import TimelineEngineStrategyKit
import TimelineEngineSupport
import TimelineEngineSyncModel
import TimelineEngineSyncWire

/// A key-value store as iCloud's `NSUbiquitousKeyValueStore` behaves: at most 1 MB and 1024 keys
/// in all, each value at most 1 MB; the service keeps the last write it received for a key,
/// whatever it holds, and tells other devices later.
public protocol UbiquitousKeyValueStore: Sendable {
    /// Every key and value this device currently sees.
    func snapshot() -> [String: Data]
    /// Sets `key`; false when a limit refuses it.
    func set(_ value: Data, forKey key: String) -> Bool
    /// Yields each time the service tells this device that other devices changed keys
    /// (`didChangeExternallyNotification`); it never finishes on its own.
    func externalChanges() -> AsyncStream<Void>
}

/// iCloudKeyValueStore: positions through iCloud's key-value store, on Apple platforms, when
/// `PositionPersistence.iCloudSyncEnabled` is true and `Sync.Transport` is None. Each device keeps
/// its own heads under its own key, `timeline-sync.<device>`, so the service's last-write-wins
/// on a key never drops another device's writes; a device's own earlier heads it overwrites are
/// older than the newer ones. Reads merge every key, as the store's documentation asks of a
/// client, and the service's change notifications start a round. Elsewhere there is no such
/// store, and building it fails unless `backend` is set (the tests set an in-memory model of
/// the store's documented behaviour). Sealed end to end (`sealing(with:)`), a device's key
/// holds its sealed name, and its value its heads sealed: Apple's servers hold no position.
public struct ICloudKeyValueStoreTransport: SealableTransport, DeclaredStrategy {
    public static let type = StrategyType(
        name: "iCloudKeyValueStore", kind: .transport,
        summary: "iCloud's key-value store, on Apple platforms: each device under its own key, merged on read.",
        examples: [TransportScenario.everyDevicesLatestHead]
    ) { _ in
        guard let store = backend.current else {
            throw StrategyError("iCloud's key-value store (NSUbiquitousKeyValueStore) exists only on Apple platforms")
        }
        return .transport(ICloudKeyValueStoreTransport(store: store))
    }

    /// Where the transport finds its store: the system's on Apple platforms, none elsewhere.
    public final class Backend: Sendable {
        private let store: Locked<(any UbiquitousKeyValueStore)?>

        init(_ store: (any UbiquitousKeyValueStore)?) {
            self.store = Locked(store)
        }

        public var current: (any UbiquitousKeyValueStore)? {
            get { store.withLock { $0 } }
            set { store.withLock { $0 = newValue } }
        }
    }

    #if canImport(Darwin) && !os(Linux)
    public static let backend = Backend(SystemUbiquitousStore())
    #else
    public static let backend = Backend(nil)
    #endif

    /// The key prefix of the devices' states.
    public static let prefix = "timeline-sync."
    /// The store's limits, as Apple documents them.
    public static let maximumBytes = 1 << 20
    public static let maximumKeys = 1024

    public let store: any UbiquitousKeyValueStore
    /// What seals the heads written and opens those read; nil: in the clear.
    public private(set) var sealer: (any RecordSealing)?

    public init(store: any UbiquitousKeyValueStore) {
        self.store = store
    }

    public func sealing(with sealing: any RecordSealing) -> any SyncTransport {
        var sealed = self
        sealed.sealer = sealing
        return sealed
    }

    /// The key `device`'s heads are kept under: of its sealed name when sealing.
    func key(of device: String) -> String {
        Self.prefix + (sealer.map { $0.sealedName(ofDevice: device) } ?? device)
    }

    public func pull(device: String) async throws(SyncTransportError) -> SyncPull {
        var pull = SyncPull()
        let own = key(of: device)
        for (key, value) in store.snapshot().sorted(by: { $0.key < $1.key }) where key.hasPrefix(Self.prefix) && key != own {
            pull.add(value, from: "iCloud key \(key)", opening: sealer)
        }
        return try pull.sealingChecked(by: sealer)
    }

    public func push(_ publication: SyncPublication) async throws(SyncTransportError) {
        let data = try publication.wireDocument(sealing: sealer)
        guard store.set(data, forKey: key(of: publication.device)) else {
            throw SyncTransportError(
                .failed, "iCloud key-value store: the state (\(data.count) bytes) is over the store's limits (1 MB and 1024 keys in all)")
        }
    }

    /// A pull at once, then one each time the service reports other devices' changes.
    public func changes(_ watch: ChangeWatch) -> AsyncStream<SyncPull> {
        AsyncStream { continuation in
            let task = Task {
                func pullOnce() async {
                    do throws(SyncTransportError) {
                        continuation.yield(try await pull(device: watch.device))
                    } catch {
                        watch.log(error.description)
                    }
                }
                // Listening starts before the first pull: a change that arrives during it is
                // pulled again, not lost.
                let changes = store.externalChanges()
                await pullOnce()
                for await _ in changes { await pullOnce() }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

#if canImport(Darwin) && !os(Linux)
/// The system's store.
// @unchecked: it holds nothing; NSUbiquitousKeyValueStore.default is documented as thread-safe.
struct SystemUbiquitousStore: UbiquitousKeyValueStore, @unchecked Sendable {
    func snapshot() -> [String: Data] {
        let store = NSUbiquitousKeyValueStore.default
        store.synchronize()
        return store.dictionaryRepresentation.compactMapValues { $0 as? Data }
    }

    func set(_ value: Data, forKey key: String) -> Bool {
        guard value.count <= ICloudKeyValueStoreTransport.maximumBytes else { return false }
        NSUbiquitousKeyValueStore.default.set(value, forKey: key)
        return NSUbiquitousKeyValueStore.default.synchronize()
    }

    func externalChanges() -> AsyncStream<Void> {
        AsyncStream { continuation in
            let observer = NotificationCenter.default.addObserver(
                forName: NSUbiquitousKeyValueStore.didChangeExternallyNotification,
                object: NSUbiquitousKeyValueStore.default, queue: nil
            ) { _ in
                continuation.yield()
            }
            continuation.onTermination = { _ in NotificationCenter.default.removeObserver(observer) }
        }
    }
}
#endif
