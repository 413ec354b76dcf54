import Foundation
import TimelineEngineKit

/// The JSON reader, the scanner, the timeline formats, the session line decoder and the sync
/// wire format (decoded, then merged into heads and resolved under each policy) on the same bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    if let value = try? JSONReader().read(data) {
        _ = try? JSONWriter().write(value)
    }
    data.withUnsafeBytes { raw in
        var scanner = JSONScanner(raw.bindMemory(to: UInt8.self))
        _ = try? scanner.skipValue()
    }
    if let timeline = try? TimelineFormat.read(data) {
        let index = TimelineIndex(timeline)
        _ = try? PipelineBuilder().build().restore(RestorationRequest(snapshot: PositionSnapshot(postId: "x", text: "a b"), index: index))
    }
    _ = try? SnapshotCoding.read(data)
    if let document = try? SyncWireCoding.decode(data) {
        var state = ReplicaState()
        state.apply(contentsOf: document.records + document.records.reversed())
        for name in ["CausalFurthest", "LastWriterWins", "FurthestRead"] {
            guard let policy = (try? BuiltInStrategies.registry.build(StrategyNode(name: name), kind: .merge))?.as((any MergePolicy).self) else {
                continue
            }
            for register in state.registers.values { _ = policy.resolve(register) }
        }
        // What a device publishes must read back: names and post ids within the limits stay so.
        guard let published = try? SyncWireCoding.encode(SyncWireCoding.Document(device: document.device, records: state.records)),
            (try? SyncWireCoding.decode(published)) != nil
        else { fatalError("a published document does not read back") }
    }
    // The sync folder's reader: a peer's file becomes records or one warning, printable.
    var pull = SyncPull()
    pull.add(data, from: "shared/peer.timeline-sync.json")
    for warning in pull.warnings where warning.unicodeScalars.contains(where: { $0.value < 0x20 }) {
        fatalError("a warning carries a control character: \(warning.debugDescription)")
    }
    if var reader = try? SessionReader(data: data, name: "fuzz.jsonl") {
        while reader.next() != nil {}
        _ = reader.takeWarnings()
    }
    return 0
}
