import Foundation
import SyncModel
import ValueTree

extension SyncPull {
    /// Adds one device's published document, read from `source`; one that cannot be decoded
    /// becomes a warning naming `source`, and changes nothing else.
    public mutating func add(_ data: Data, from source: String) {
        do {
            let document = try SyncWireCoding.decode(data)
            records += document.records
            devices.append(document.device)
        } catch {
            warnings.append(TerminalText.escaped("\(source): skipped: \(error.description)"))
        }
    }
}

extension SyncPublication {
    /// The device's own heads as the document a transport publishes; a record with no wire form
    /// fails the push, naming it, and nothing is sent.
    public func wireDocument() throws(SyncTransportError) -> Data {
        do {
            return try SyncWireCoding.encode(SyncWireCoding.Document(device: device, records: own))
        } catch {
            throw SyncTransportError(.failed, "\(device)'s state has no wire form: \(error.description)")
        }
    }
}
