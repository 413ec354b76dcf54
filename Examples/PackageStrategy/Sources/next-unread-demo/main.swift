import Foundation
import NextUnread
import TimelineEngineKit

// How an app registers its own strategy: a registry with the built-ins and its type, the
// configuration schema composed from that registry (so the loader checks the strategy's name and
// parameters with lines), and pipelines built through the same registry.
//
//   next-unread-demo validate CONFIG
//   next-unread-demo restore CONFIG TIMELINE POSITION

let registry: StrategyRegistry
do {
    registry = try BuiltInStrategies.registry.adding([NextUnreadStrategy.type])
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(2)
}
let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first, arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: next-unread-demo validate CONFIG | restore CONFIG TIMELINE POSITION\n".utf8))
    exit(2)
}
let loaded = ConfigurationLoader(schema: registry.configurationSchema)
    .read(contentsOf: URL(fileURLWithPath: arguments[1]), displayName: arguments[1])
for diagnostic in loaded.diagnostics { FileHandle.standardError.write(Data("\(diagnostic.description)\n".utf8)) }
guard loaded.errors.isEmpty else { exit(1) }
switch command {
case "validate":
    print("\(arguments[1]): OK")
case "restore" where arguments.count == 4:
    do {
        let pipeline = try PipelineBuilder(registry: registry, configuration: loaded.configuration).build()
        let timeline = try TimelineFormat.read(Data(contentsOf: URL(fileURLWithPath: arguments[2])))
        let snapshot = try SnapshotCoding.read(Data(contentsOf: URL(fileURLWithPath: arguments[3])))
        let outcome = pipeline.restore(RestorationRequest(snapshot: snapshot, index: TimelineIndex(timeline)))
        print(pipeline.summary)
        if let restoration = outcome.restoration {
            print("\(restoration.postId) by \(restoration.strategy), confidence \(restoration.confidence): \(restoration.explanation)")
        }
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
default:
    FileHandle.standardError.write(Data("usage: next-unread-demo validate CONFIG | restore CONFIG TIMELINE POSITION\n".utf8))
    exit(2)
}
