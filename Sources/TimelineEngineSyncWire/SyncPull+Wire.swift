import Foundation
import TimelineEngineJSONText
import TimelineEngineSyncModel
import TimelineEngineValueTree

extension SyncPull {
    /// Adds one device's published document, read from `source`; one that cannot be decoded
    /// becomes a warning naming `source`, and changes nothing else. Sealed heads are opened with
    /// `sealing`, and counted as unopened without it (`sealingChecked(by:)` says what that means).
    public mutating func add(_ data: Data, from source: String, opening sealing: (any RecordSealing)? = nil) {
        do {
            let document = try SyncWireCoding.decode(data)
            let opened = take(document, from: source, opening: sealing)
            if document.sealed.isEmpty {
                devices.append(document.device)
            } else {
                devices += Set(opened.map(\.device)).sorted()
            }
        } catch {
            warnings.append(TerminalText.escaped("\(source): skipped: \(error.description)"))
        }
    }

    /// Adds a document's records, its sealed heads opened with `sealing`; returns those opened.
    /// A sealed head that does not open under a key `sealing` holds (it was altered) becomes a
    /// warning naming `source`.
    @discardableResult
    public mutating func take(
        _ document: SyncWireCoding.Document, from source: String, opening sealing: (any RecordSealing)?
    ) -> [PositionRecord] {
        records += document.records
        var opened: [PositionRecord] = []
        for sealed in document.sealed {
            do {
                if let sealing, let record = try sealed.open(with: sealing) {
                    opened.append(record)
                    continue
                }
                sealedUnopened[sealed.keyId, default: 0] += 1
            } catch {
                warnings.append(TerminalText.escaped("\(source): skipped: \(error.description)"))
            }
        }
        sealedOpened += opened.count
        records += opened
        return opened
    }

    /// The keys a message names: `key K` for one; `keys K1, K2, K3` for up to three; the first
    /// three and how many more beyond (a planted head under each of 5,000 foreign keys made a
    /// line of 50 KB).
    static func keysNamed(_ keys: some Collection<String>) -> String {
        let sorted = keys.sorted()
        let shown = sorted.prefix(3).joined(separator: ", ")
        if sorted.count == 1 { return "key \(shown)" }
        return sorted.count <= 3 ? "keys \(shown)" : "keys \(shown) and \(sorted.count - 3) more"
    }

    /// This pull, once its sealed heads are accounted for: when `sealing` opened none of them and
    /// some were sealed under keys it lacks, the device holds the wrong key, and the pull fails
    /// so that the round sends nothing; heads under keys it lacks beside ones opened, and sealed
    /// heads read without a key, are warnings. A key id says nothing of when its phrase was
    /// made, so the warning names both ways it comes about: a phrase changed on another device
    /// (this one is behind), or an earlier phrase this one no longer holds.
    ///
    /// Heads under keys the reader left behind (`RecordSealing.leftBehindKeyIds`: their phrase is
    /// gone) are skipped with a warning of their own and never fail the pull, so that devices
    /// that all changed their phrase after losing the old one can move on.
    public func sealingChecked(by sealing: (any RecordSealing)?) throws(SyncTransportError) -> SyncPull {
        guard !sealedUnopened.isEmpty else { return self }
        let count = sealedUnopened.values.reduce(0, +)
        let keys = Self.keysNamed(sealedUnopened.keys)
        guard let sealing else {
            var pull = self
            pull.warnings.append(
                "\(count) position\(count == 1 ? " is" : "s are") sealed end to end (\(keys)) and skipped: set Sync.EncryptionPhraseVariable to open them"
            )
            return pull
        }
        var pull = self
        let leftBehind = sealedUnopened.filter { sealing.leftBehindKeyIds.contains($0.key) }
        if !leftBehind.isEmpty {
            let skipped = leftBehind.values.reduce(0, +)
            pull.sealedUnopened = sealedUnopened.filter { !sealing.leftBehindKeyIds.contains($0.key) }
            pull.warnings.append(
                "\(skipped) position\(skipped == 1 ? "" : "s") sealed under \(Self.keysNamed(leftBehind.keys)), left behind (Sync.LeftBehindKeyIds), skipped"
            )
            guard !pull.sealedUnopened.isEmpty else { return pull }
        }
        let unopened = pull.sealedUnopened.values.reduce(0, +)
        let foreign = Self.keysNamed(pull.sealedUnopened.keys)
        guard sealedOpened > 0 else {
            let ids = pull.sealedUnopened.keys.sorted()
            let named = ids.count <= 3 ? ids.joined(separator: ",") : "their ids"
            throw SyncTransportError(
                .failed,
                """
                positions here are sealed under \(foreign), which this device does not hold (its key is \(sealing.keyId)), and none \
                under its own: either this device's recovery phrase is not the one the other devices use (set theirs here), or every \
                device changed its phrase and the old one is gone (then add \(named) to Sync.LeftBehindKeyIds to go on without \
                those positions); nothing was sent
                """)
        }
        pull.warnings.append(
            """
            \(unopened) position\(unopened == 1 ? " is" : "s are") sealed under \(foreign), which this device does not hold, and skipped: \
            if another device changed the phrase, set Sync.EncryptionPhraseVariable to the new one here (and \
            Sync.PreviousEncryptionPhraseVariable to this one); if it is an earlier phrase's key, set \
            Sync.PreviousEncryptionPhraseVariable to the earlier phrase until every device has written again
            """)
        return pull
    }
}

extension SyncPublication {
    /// The device's own heads as the document a transport publishes, sealed by `sealing` when
    /// given (under the device's sealed name); a record with no wire form fails the push,
    /// naming it, and nothing is sent.
    public func wireDocument(sealing: (any RecordSealing)? = nil) throws(SyncTransportError) -> Data {
        do {
            guard let sealing else { return try SyncWireCoding.encode(SyncWireCoding.Document(device: device, records: own)) }
            let sealed = try own.map { try SealedRecord.seal($0, with: sealing) }
            return try SyncWireCoding.encode(
                SyncWireCoding.Document(device: sealing.sealedName(ofDevice: device), records: [], sealed: sealed))
        } catch let error as JSONWriter.UnrepresentableValue {
            throw SyncTransportError(.failed, "\(device)'s state has no wire form: \(error.description)")
        } catch {
            throw SyncTransportError(.failed, "\(device)'s state cannot be sealed: \(error)")
        }
    }
}

/// A transport that can carry heads sealed end to end (`SealedRecord`): it stores positions
/// elsewhere as whole documents (a server, a folder, a key-value store). Mastodon's markers
/// cannot: the server must read the post id.
public protocol SealableTransport: SyncTransport {
    /// This transport sealing what it publishes, and opening what it reads, with `sealing`.
    func sealing(with sealing: any RecordSealing) -> any SyncTransport
}
