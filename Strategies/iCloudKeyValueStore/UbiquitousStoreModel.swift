import Foundation
import TimelineEngineSupport

/// An in-memory model of iCloud's key-value store as Apple documents it, for running the
/// transport where the real one does not exist: one service and a view per device. A write
/// lands in the device's view at once and reaches the service on `upload()`; the service keeps
/// the last write it received for each key, unconditionally; other devices see it only on
/// `deliver()`, late. Writes beyond 1 MB or 1024 keys in all are refused.
public final class UbiquitousStoreModel: Sendable {
    private struct Stores {
        var service: [String: Data] = [:]
        var views: [String: [String: Data]] = [:]
        var uploads: [(device: String, key: String, value: Data)] = []
        var listeners: [String: [UUID: AsyncStream<Void>.Continuation]] = [:]
    }

    private let state = Locked(Stores())

    public init() {}

    /// The store as device `device` sees it.
    public func view(for device: String) -> some UbiquitousKeyValueStore {
        DeviceView(model: self, device: device)
    }

    /// Sends queued writes to the service, in the order given (the service keeps the last one
    /// per key, so a reordering loses the earlier of two concurrent writes).
    public func upload(order: (Int, Int) -> Bool = { $0 < $1 }) {
        state.withLock { state in
            let indexed = state.uploads.enumerated().sorted { order($0.offset, $1.offset) }
            for (_, write) in indexed { state.service[write.key] = write.value }
            state.uploads.removeAll()
        }
    }

    /// Tells device `device` what the service holds now, and notifies it.
    public func deliver(to device: String) {
        let notified = state.withLock { state in
            let service = state.service
            state.views[device] = service.merging(state.views[device]?.filter { key, _ in service[key] == nil } ?? [:]) { service, _ in service }
            return Array((state.listeners[device] ?? [:]).values)
        }
        for continuation in notified { continuation.yield() }
    }

    fileprivate func externalChanges(_ device: String) -> AsyncStream<Void> {
        AsyncStream { continuation in
            let id = UUID()
            state.withLock { $0.listeners[device, default: [:]][id] = continuation }
            continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.listeners[device]?.removeValue(forKey: id) } }
        }
    }

    fileprivate func snapshot(_ device: String) -> [String: Data] {
        state.withLock { $0.views[device] ?? [:] }
    }

    fileprivate func set(_ value: Data, key: String, device: String) -> Bool {
        state.withLock { state in
            var next = state.service
            next[key] = value
            let bytes = next.reduce(0) { $0 + $1.key.utf8.count + $1.value.count }
            guard next.count <= ICloudKeyValueStoreTransport.maximumKeys, bytes <= ICloudKeyValueStoreTransport.maximumBytes else { return false }
            state.views[device, default: [:]][key] = value
            state.uploads.append((device, key, value))
            return true
        }
    }

    private struct DeviceView: UbiquitousKeyValueStore {
        let model: UbiquitousStoreModel
        let device: String

        func snapshot() -> [String: Data] { model.snapshot(device) }
        func set(_ value: Data, forKey key: String) -> Bool { model.set(value, key: key, device: device) }
        func externalChanges() -> AsyncStream<Void> { model.externalChanges(device) }
    }
}
