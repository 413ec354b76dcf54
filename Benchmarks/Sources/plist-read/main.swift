// Reads a property list into the value tree and reports how many values it holds: the
// library's full read, for comparison with `engine plist lint` (streaming check) and peers.
import Foundation
import TimelineEngineKit

func count(_ value: Value) -> Int {
    switch value.content {
    case .array(let elements): return 1 + elements.reduce(0) { $0 + count($1) }
    case .dictionary(let members): return 1 + members.values.reduce(0) { $0 + count($1.value) }
    default: return 1
    }
}

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: plist-read FILE\n".utf8))
    exit(2)
}
do {
    let value = try PropertyListReader().read(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
    print("\(count(value)) values")
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
}
