import Foundation

/// An in-memory model of iCloud's key-value store as Apple documents it, for running the
/// transport where the real one does not exist: one service and a view per device. A write
/// lands in the device's view at once and reaches the service on `upload()`; the service keeps
/// the last write it received for each key, unconditionally; other devices see it only on
/// `deliver()`, late. Writes beyond 1 MB or 1024 keys in all are refused.
// @unchecked: every stored property is read and written under `lock`.
public final class UbiquitousStoreModel: @unchecked Sendable {
    private let lock = NSLock()
    private var service: [String: Data] = [:]
    private var views: [String: [String: Data]] = [:]
    private var uploads: [(device: String, key: String, value: Data)] = []
    private var listeners: [String: [UUID: AsyncStream<Void>.Continuation]] = [:]

    public init() {}

    /// The store as device `device` sees it.
    public func view(for device: String) -> some UbiquitousKeyValueStore {
        DeviceView(model: self, device: device)
    }

    /// Sends queued writes to the service, in the order given (the service keeps the last one
    /// per key, so a reordering loses the earlier of two concurrent writes).
    public func upload(order: (Int, Int) -> Bool = { $0 < $1 }) {
        lock.withLock {
            let indexed = uploads.enumerated().sorted { order($0.offset, $1.offset) }
            for (_, write) in indexed { service[write.key] = write.value }
            uploads.removeAll()
        }
    }

    /// Tells device `device` what the service holds now, and notifies it.
    public func deliver(to device: String) {
        let notified = lock.withLock {
            views[device] = service.merging(views[device]?.filter { key, _ in service[key] == nil } ?? [:]) { service, _ in service }
            return Array((listeners[device] ?? [:]).values)
        }
        for continuation in notified { continuation.yield() }
    }

    fileprivate func externalChanges(_ device: String) -> AsyncStream<Void> {
        AsyncStream { continuation in
            let id = UUID()
            lock.withLock { listeners[device, default: [:]][id] = continuation }
            continuation.onTermination = { [weak self] _ in self?.lock.withLock { _ = self?.listeners[device]?.removeValue(forKey: id) } }
        }
    }

    fileprivate func snapshot(_ device: String) -> [String: Data] {
        lock.withLock { views[device] ?? [:] }
    }

    fileprivate func set(_ value: Data, key: String, device: String) -> Bool {
        lock.withLock {
            var next = service
            next[key] = value
            let bytes = next.reduce(0) { $0 + $1.key.utf8.count + $1.value.count }
            guard next.count <= ICloudKeyValueStoreTransport.maximumKeys, bytes <= ICloudKeyValueStoreTransport.maximumBytes else { return false }
            views[device, default: [:]][key] = value
            uploads.append((device, key, value))
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
