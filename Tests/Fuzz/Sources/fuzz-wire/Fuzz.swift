import Foundation
import TimelineEngineKit

/// Sync wire format version 2 with hostile causal contexts: a valid document around a context
/// drawn from the bytes (device names that repeat, are long or hold control characters,
/// counters anywhere from negative to past 2^63, thousands of entries), decoded, merged under
/// each merge policy and published again. A document the decoder accepts must publish and read
/// back; one it refuses must say why in printable text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Array(UnsafeRawBufferPointer(start: bytes, count: count))
    var context: [String] = []
    var index = 0
    while index + 2 < data.count {
        let length = Int(data[index] % 24)
        let nameBytes = data[(index + 1)..<min(data.count, index + 1 + length)]
        index += 1 + length
        let counter: String =
            switch data[min(index, data.count - 1)] % 6 {
            case 0: "-1"
            case 1: "9223372036854775808"
            case 2: "1e300"
            case 3: "\"7\""
            default: String(Int(data[min(index, data.count - 1)]))
            }
        index += 1
        let name = String(decoding: nameBytes, as: UTF8.self)
        let quoted = JSONWriter.quoted(name)
        context.append("\(quoted): \(counter)")
    }
    // Many entries from one short input: the same context repeated.
    let repeats = data.first.map { Int($0 % 4) == 0 ? 200 : 1 } ?? 1
    let entries = Array(repeating: context, count: repeats).joined().joined(separator: ", ")
    let document = """
        {"format": "timeline-sync", "version": 2, "device": "phone", "records": [{"account": "me", "timeline": "home", \
        "hlc": "01a20cefb6260000", "device": "phone", "seq": 3, "context": {\(entries)}, "savedAt": "2026-11-24T09:42:46.054Z", \
        "epoch": {"hlc": "0000000000000000", "device": ""}, "progress": {"createdAt": 1795507200.0, "postId": "100"}, \
        "position": {"postId": "100", "viewportY": 0}}]}
        """
    do {
        let decoded = try SyncWireCoding.decode(Data(document.utf8))
        var state = ReplicaState()
        state.apply(contentsOf: decoded.records)
        for name in ["CausalFurthest", "LastWriterWins", "FurthestRead"] {
            guard let policy = (try? BuiltInStrategies.registry.build(StrategyNode(name: name), kind: .merge))?.as((any MergePolicy).self) else {
                continue
            }
            for register in state.registers.values { _ = policy.resolve(register) }
        }
        guard let published = try? SyncWireCoding.encode(SyncWireCoding.Document(device: decoded.device, records: state.records)),
            (try? SyncWireCoding.decode(published)) != nil
        else { fatalError("a published document does not read back") }
    } catch {
        if "\(error)".unicodeScalars.contains(where: { $0.value < 0x20 }) { fatalError("an error carries a control character: \(error)") }
    }
    return 0
}
