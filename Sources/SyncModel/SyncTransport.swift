import Foundation

/// Where positions travel between devices. A transport publishes this device's writes and
/// reads what the others published; the register's merge makes delivery order, duplicates and
/// delays harmless.
public protocol SyncTransport: Sendable {
    /// The registered name.
    var name: String { get }
    /// What the other devices published, and a warning for each source that could not be read
    /// (a half-copied file, say); an unreachable transport throws.
    func pull(device: String) throws(SyncTransportError) -> SyncPull
    /// Publishes `records`, this device's whole state, for the others.
    func push(_ records: [PositionRecord], device: String) throws(SyncTransportError)
    /// Publishes this device's state: by default its records (`push(_:device:)`). A transport
    /// that carries only a register's value, as Mastodon's markers do, reads the winners here.
    func push(state: ReplicaState, device: String) throws(SyncTransportError)
    /// Seconds between two rounds when nothing local changed; nil for a transport with nothing
    /// to poll.
    var pollInterval: Double? { get }
}

extension SyncTransport {
    public var pollInterval: Double? { nil }

    public func push(state: ReplicaState, device: String) throws(SyncTransportError) {
        try push(state.records, device: device)
    }
}

/// What a pull brought.
public struct SyncPull: Sendable {
    public var records: [PositionRecord]
    /// One line per source that was skipped, naming it.
    public var warnings: [String]
    /// The devices heard from.
    public var devices: [String]

    public init(records: [PositionRecord] = [], warnings: [String] = [], devices: [String] = []) {
        self.records = records
        self.warnings = warnings
        self.devices = devices
    }

    /// Adds one device's published document, read from `source`; one that cannot be decoded
    /// becomes a warning naming `source`, and changes nothing else.
    public mutating func add(_ data: Data, from source: String) {
        do {
            let document = try SyncWireCoding.decode(data)
            records += document.records
            devices.append(document.device)
        } catch {
            warnings.append("\(source): skipped: \(error.description)")
        }
    }
}

/// A transport that cannot be used now: unreachable (offline), or failing.
public struct SyncTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The folder or server cannot be reached: positions wait in the outbox.
        case unreachable
        /// It was reached and failed.
        case failed
    }

    public let kind: Kind
    public let description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
