import Foundation
import TimelineEngineJSONText
import TimelineEngineSyncModel
import TimelineEngineValueTree

/// A register head sealed end to end: what a sync server, a shared folder or iCloud's store holds
/// of it when `Sync.EncryptionPhraseVariable` (or an app's key) is set. Only what ordering needs
/// is in the clear:
///
/// ```json
/// {"account": "sealed", "timeline": "q3Jx…", "device": "Vb0e…", "seq": 12, "clocksRevision": 1,
///  "key": "1f0c9a2e", "sealed": "base64 of nonce, ciphertext and tag"}
/// ```
///
/// - `timeline` and `device` are keyed hashes of the register (account and timeline) and the
///   device name (`RecordSealing.sealedName`): a holder without the key can tell registers and
///   devices apart, and count them, but not name them. `account` is always `sealed`.
/// - `seq` and `clocksRevision` order a device's writes (`PositionRecord.Order`), which is all a
///   server does with a head.
/// - `key` names the key that sealed it (its id, derived from the key), so that a device holding
///   several keys (a rotation) opens it with the right one.
/// - `sealed` is the whole record in the wire format, padded, sealed with an authenticated
///   cipher whose associated data is every clear field: a holder that moves a sealed head to
///   another register, device or place in the order makes it fail to open.
public struct SealedRecord: Sendable, Equatable {
    /// The account every sealed head is written under.
    public static let account = "sealed"

    /// The register's sealed name (`account` is always `SealedRecord.account`).
    public var key: RegisterKey
    /// The device's sealed name.
    public var device: String
    public var sequence: UInt64
    public var clocksRevision: UInt64
    /// The id of the key that sealed it.
    public var keyId: String
    /// The sealed bytes: nonce, ciphertext and tag.
    public var box: [UInt8]

    public init(key: RegisterKey, device: String, sequence: UInt64, clocksRevision: UInt64, keyId: String, box: [UInt8]) {
        self.key = key
        self.device = device
        self.sequence = sequence
        self.clocksRevision = clocksRevision
        self.keyId = keyId
        self.box = box
    }

    /// Its place among its device's writes, as a server orders heads: the clock's time is sealed.
    public var order: PositionRecord.Order {
        PositionRecord.Order(sequence: sequence, time: HybridTimestamp(rawValue: 0), clocksRevision: clocksRevision)
    }

    /// What the cipher authenticates besides the record: every field in the clear.
    public var associatedData: [UInt8] {
        Array("timeline-sync sealed 1\n\(key.account)\n\(key.timeline)\n\(device)\n\(sequence)\n\(clocksRevision)\n\(keyId)".utf8)
    }

    /// Plaintexts are padded with spaces to a multiple of this many bytes, so that a sealed
    /// head's length tells little of its excerpt's or its post id's.
    public static let paddingBlock = 256

    /// `record` sealed by `sealing`; a record with a number that has no JSON form is an error.
    public static func seal(_ record: PositionRecord, with sealing: any RecordSealing) throws -> SealedRecord {
        var plaintext = Array(try JSONWriter(style: .compact).write(SyncWireCoding.value(of: record)).utf8)
        let padded = (plaintext.count / paddingBlock + 1) * paddingBlock
        plaintext += repeatElement(UInt8(ascii: " "), count: padded - plaintext.count)
        var sealed = SealedRecord(
            key: RegisterKey(account: account, timeline: sealing.sealedName(ofRegister: record.key)),
            device: sealing.sealedName(ofDevice: record.device), sequence: record.sequence, clocksRevision: record.clocksRevision,
            keyId: sealing.keyId, box: [])
        sealed.box = try sealing.seal(plaintext, authenticating: sealed.associatedData)
        return sealed
    }

    /// The record sealed in it, opened by `sealing`: nil when `sealing` holds no key of its id;
    /// an error when the box does not open under that key, or holds a record that is not the
    /// one its clear fields name.
    public func open(with sealing: any RecordSealing) throws(SyncWireCoding.DecodingError) -> PositionRecord? {
        guard sealing.keyIds.contains(keyId) else { return nil }
        guard let plaintext = sealing.open(box, keyId: keyId, authenticating: associatedData) else {
            throw SyncWireCoding.DecodingError("a sealed position of device \(device) does not open with key \(keyId): it was altered")
        }
        let record: PositionRecord
        do {
            record = try SyncWireCoding.record(JSONReader(maximumDepth: 64).read(Data(plaintext)), at: "sealed")
        } catch let error as SyncWireCoding.DecodingError {
            throw error
        } catch {
            throw SyncWireCoding.DecodingError("a sealed position of device \(device) holds no record: \(error)")
        }
        guard record.sequence == sequence, record.clocksRevision == clocksRevision,
            sealing.sealedName(ofRegister: record.key, keyId: keyId) == key.timeline, key.account == Self.account,
            sealing.sealedName(ofDevice: record.device, keyId: keyId) == device
        else {
            throw SyncWireCoding.DecodingError("a sealed position of device \(device) holds another device's or register's write")
        }
        return record
    }

    /// The record in the wire format.
    public var value: Value {
        var pairs: [(String, Value)] = [
            ("account", .string(key.account)), ("timeline", .string(key.timeline)), ("device", .string(device)),
            ("seq", Value(.integer(IntegerValue(sequence)))),
        ]
        if clocksRevision > 0 { pairs.append(("clocksRevision", Value(.integer(IntegerValue(clocksRevision))))) }
        pairs += [("key", .string(keyId)), ("sealed", .string(Data(box).base64EncodedString()))]
        return .dictionary(pairs)
    }

    /// Whether `keyId` is written as key ids are: 8 lowercase hexadecimal digits.
    public static func isKeyId(_ keyId: String) -> Bool {
        keyId.utf8.count == 8 && keyId.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The most bytes a box holds: a record with every read digest and the longest excerpt,
    /// padded, with its nonce and tag.
    public static let maximumBoxBytes = 64 << 10
}

/// What seals and opens register heads, and names registers and devices, under keys the holder
/// of the heads never sees. `SyncKeyring` (module `TimelineEngineSyncSealing`) is the engine's.
public protocol RecordSealing: Sendable {
    /// The id of the key that seals.
    var keyId: String { get }
    /// The ids of every key that opens: the sealing key's, and those of earlier keys.
    var keyIds: Set<String> { get }
    /// `plaintext` sealed under the current key, with `associatedData` authenticated.
    func seal(_ plaintext: [UInt8], authenticating associatedData: [UInt8]) throws -> [UInt8]
    /// The plaintext of `box`, sealed under the key `keyId`, or nil when it does not open.
    func open(_ box: [UInt8], keyId: String, authenticating associatedData: [UInt8]) -> [UInt8]?
    /// The name a register goes by where it is held, under the key `keyId` (the current one
    /// when nil).
    func sealedName(ofRegister key: RegisterKey, keyId: String?) -> String
    /// The name a device goes by where it is held, under the key `keyId` (the current one when nil).
    func sealedName(ofDevice device: String, keyId: String?) -> String
    /// The ids of keys whose heads the reader accepts leaving behind: a pull skips them with a
    /// warning, and goes on even when it opens nothing else (`SyncPull.sealingChecked(by:)`).
    var leftBehindKeyIds: Set<String> { get }
}

extension RecordSealing {
    /// None by default.
    public var leftBehindKeyIds: Set<String> { [] }

    public func sealedName(ofRegister key: RegisterKey) -> String { sealedName(ofRegister: key, keyId: nil) }
    public func sealedName(ofDevice device: String) -> String { sealedName(ofDevice: device, keyId: nil) }
}
