// Reads recorded sessions with SessionReader, as engine compare does, and reports the
// throughput. Usage: session-ingest FILE...
import Foundation
import TimelineEngine

var bytes = 0, events = 0, restorePoints = 0, warnings = 0
let started = DispatchTime.now().uptimeNanoseconds
for path in CommandLine.arguments.dropFirst() {
    do {
        var reader = try SessionReader(contentsOf: URL(fileURLWithPath: path))
        while let event = reader.next() {
            events += 1
            if case .restore = event.kind { restorePoints += 1 }
        }
        warnings += reader.takeWarnings().count
        bytes += (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        exit(1)
    }
}
let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
print("\(CommandLine.arguments.count - 1) sessions, \(bytes) bytes, \(events) events, \(restorePoints) restore points, \(warnings) warnings in \(String(format: "%.3f", seconds)) s: \(String(format: "%.1f", Double(bytes) / 1e6 / seconds)) MB/s")
