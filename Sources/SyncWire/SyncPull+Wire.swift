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
