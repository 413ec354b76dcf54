import Foundation
import TimelineEngineKit

/// The configuration loader on the bytes as a plist and as JSON, and the pipeline it describes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    for format in [ConfigurationFormat.plist, .json] {
        let loaded = ConfigurationLoader().read(data: data, fileName: "fuzz", format: format)
        _ = try? PipelineBuilder(configuration: loaded.configuration).build()
        _ = try? CachePolicyBuilder(configuration: loaded.configuration).timelineCache()
        _ = try? NetworkPolicyBuilder(configuration: loaded.configuration).build()
    }
    return 0
}
