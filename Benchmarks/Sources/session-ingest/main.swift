// Reads recorded sessions with SessionReader, as engine compare does, and reports the
// throughput. Usage: session-ingest FILE-OR-DIRECTORY...
import Foundation
import TimelineEngineKit
import TimelineEngineSessionComparison

var bytes = 0
var events = 0
var restorePoints = 0
var warnings = 0
let started = DispatchTime.now().uptimeNanoseconds
let files = (try? SessionFiles.expand(Array(CommandLine.arguments.dropFirst()))) ?? []
for path in files {
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
print(
    "\(files.count) sessions, \(bytes) bytes, \(events) events, \(restorePoints) restore points, \(warnings) warnings in \(String(format: "%.3f", seconds)) s: \(String(format: "%.1f", Double(bytes) / 1e6 / seconds)) MB/s"
)
