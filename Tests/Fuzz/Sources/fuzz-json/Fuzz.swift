import Foundation
import TimelineEngine

/// The JSON reader, the scanner, the timeline formats and the session line decoder on the same
/// bytes.
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
    if var reader = try? SessionReader(data: data, name: "fuzz.jsonl") {
        while reader.next() != nil {}
        _ = reader.takeWarnings()
    }
    return 0
}
