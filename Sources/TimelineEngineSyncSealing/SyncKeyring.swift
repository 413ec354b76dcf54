import Foundation
import TimelineEngineSyncModel
import TimelineEngineSyncWire

#if SyncEncryption
import Crypto
#endif

/// The keys a device seals and opens register heads with: the current one seals, names the
/// registers and devices, and opens; earlier ones (a rotation) only open, so that heads sealed
/// under them stay readable until their devices write again under the current key.
public struct SyncKeyring: RecordSealing {
    public let current: SyncKey
    public let previous: [SyncKey]
    public let leftBehindKeyIds: Set<String>

    /// A keyring sealing with `current`, opening with it and `previous`, and leaving behind the
    /// heads sealed under `leftBehind` (key ids whose phrase is gone).
    public init(current: SyncKey, previous: [SyncKey] = [], leftBehind: Set<String> = []) {
        self.current = current
        self.previous = previous.filter { $0.id != current.id }
        leftBehindKeyIds = leftBehind.subtracting([current.id] + previous.map(\.id))
    }

    public var keyId: String { current.id }
    public var keyIds: Set<String> { Set([current.id] + previous.map(\.id)) }

    private func key(_ id: String?) -> SyncKey? {
        guard let id, id != current.id else { return current }
        return previous.first { $0.id == id }
    }

    public func seal(_ plaintext: [UInt8], authenticating associatedData: [UInt8]) throws -> [UInt8] {
        #if SyncEncryption
        return Array(try ChaChaPoly.seal(plaintext, using: current.sealing, authenticating: associatedData).combined)
        #else
        throw SyncKeyError.unavailable
        #endif
    }

    public func open(_ box: [UInt8], keyId: String, authenticating associatedData: [UInt8]) -> [UInt8]? {
        #if SyncEncryption
        guard let key = key(keyId), let sealed = try? ChaChaPoly.SealedBox(combined: box),
            let plaintext = try? ChaChaPoly.open(sealed, using: key.sealing, authenticating: associatedData)
        else { return nil }
        return Array(plaintext)
        #else
        return nil
        #endif
    }

    public func sealedName(ofRegister key: RegisterKey, keyId: String?) -> String {
        #if SyncEncryption
        return (self.key(keyId) ?? current).name(["register", key.account, key.timeline])
        #else
        return ""
        #endif
    }

    public func sealedName(ofDevice device: String, keyId: String?) -> String {
        #if SyncEncryption
        return (self.key(keyId) ?? current).name(["device", device])
        #else
        return ""
        #endif
    }
}
