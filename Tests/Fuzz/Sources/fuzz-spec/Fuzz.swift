import Foundation
import TimelineEngineKit

/// The pipeline spec parser, and the builder on what it parses; a built pipeline's summary must
/// read back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
    _ = try? PipelineSpec.parse(text)
    if let pipeline = try? PipelineBuilder().build(spec: text) {
        guard (try? PipelineBuilder().build(spec: pipeline.summary)) != nil else { fatalError("the summary does not parse: \(pipeline.summary)") }
    }
    return 0
}
