import Foundation
import TimelineEngineKit

/// The plist reader, building values and checking as it streams; a document it reads is written
/// back and read again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: bytes, count: count)
    let reader = PropertyListReader(maximumInputSize: 1 << 20)
    try? reader.check(data)
    if let value = try? reader.read(data), let written = try? PropertyListWriter().write(value) {
        _ = try? reader.read(Data(written.utf8))
    }
    return 0
}
