// A strategy behind the plugin C ABI against the same algorithm built in: the example plugin
// SameAuthor (Examples/SameAuthorPlugin) and the built-in AuthorRun, on timelines of 10k and 1M
// posts, and what loading the plugin costs.
//
// Usage: plugin-bench PLUGIN.so [SIZES...]
//
// Two costs per restore: on a fresh timeline index (what an app pays on the first restore after
// a load: the built-in builds the index's time order, the plugin also the columnar view it
// reads), and on an index already used (every later restore on the same timeline, and what
// `engine compare` pays for every pipeline after the first at a restore point).
import Foundation
import TimelineEngineKit
import TimelineEngineStrategyPlugins

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let plugin = arguments.first else {
    FileHandle.standardError.write(Data("usage: plugin-bench PLUGIN.so [SIZES...]\n".utf8))
    exit(2)
}
let sizes = arguments.dropFirst().compactMap { Int($0) }.isEmpty ? [10_000, 1_000_000] : arguments.dropFirst().compactMap { Int($0) }

/// SplitMix64, so that every run measures the same timelines.
struct Random {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

var loads: [Double] = []
var registry = BuiltInStrategies.registry
for _ in 0..<20 {
    let started = now()
    registry = try PluginLoader.load([plugin], into: BuiltInStrategies.registry)
    loads.append(Double(now() - started) / 1e6)
}
print(
    "Loading the plugin (dlopen, ABI check, describe, schema compile, registration, its 3 scenarios and the 4 common checks): median \(String(format: "%.2f", median(loads))) ms over 20 loads; the first \(String(format: "%.2f", loads[0])) ms"
)
var compositions: [Double] = []
for _ in 0..<20 {
    let fresh = try PluginLoader.load([plugin], into: BuiltInStrategies.registry)
    let started = now()
    _ = fresh.configurationSchema
    compositions.append(Double(now() - started) / 1e6)
}
print(
    "Composing and compiling the configuration schema with the plugin's strategy (once per registry, then cached): median \(String(format: "%.2f", median(compositions))) ms"
)
print()
let builtIn = try PipelineBuilder(registry: registry).build(spec: "AuthorRun")
let fromPlugin = try PipelineBuilder(registry: registry).build(spec: "SameAuthor")

print("| posts | restore | AuthorRun (built in) | SameAuthor (plugin) | plugin / built-in |")
print("|---:|---|---:|---:|---:|")
for size in sizes {
    var random = Random(state: UInt64(size))
    let base = Date(timeIntervalSince1970: 1_700_000_000)
    // A home timeline: newest first, one post every 3 s on average, 2,000 authors.
    var time = 0.0
    let posts = (0..<size).map { number -> Post in
        time += Double(random.next(6))
        return Post(
            id: String(1_600_000_000_000_000_000 - number * 7919), createdAt: base.addingTimeInterval(-time),
            author: "author\(random.next(2000))", text: nil, height: Double(80 + random.next(200)))
    }
    let timeline = Timeline(posts: posts)
    // Saved posts deleted since, at random times, by authors who posted nearby.
    let requests = (0..<200).map { _ -> PositionSnapshot in
        let near = posts[random.next(size)]
        return PositionSnapshot(
            postId: "deleted", postCreatedAt: near.createdAt.addingTimeInterval(Double(random.next(60)) - 30),
            author: near.author)
    }
    var results: [String: (fresh: Double, warm: Double)] = [:]
    for (name, pipeline) in [("built-in", builtIn), ("plugin", fromPlugin)] {
        var fresh: [Double] = []
        for round in 0..<(size >= 1_000_000 ? 5 : 20) {
            let index = TimelineIndex(timeline)
            let started = now()
            _ = pipeline.restore(RestorationRequest(snapshot: requests[round], index: index))
            fresh.append(Double(now() - started) / 1e3)
        }
        let index = TimelineIndex(timeline)
        _ = pipeline.restore(RestorationRequest(snapshot: requests[0], index: index))
        var warm: [Double] = []
        for request in requests {
            let started = now()
            _ = pipeline.restore(RestorationRequest(snapshot: request, index: index))
            warm.append(Double(now() - started) / 1e3)
        }
        results[name] = (median(fresh), median(warm))
    }
    // The same answers, or the comparison means nothing.
    let index = TimelineIndex(timeline)
    for request in requests {
        let a = builtIn.restore(RestorationRequest(snapshot: request, index: index)).restoration
        let b = fromPlugin.restore(RestorationRequest(snapshot: request, index: index)).restoration
        precondition(a?.postId == b?.postId && a?.confidence == b?.confidence, "the plugin and the built-in disagree")
    }
    let label = size >= 1_000_000 ? "\(size / 1_000_000)M" : "\(size / 1000)k"
    func row(_ kind: String, _ a: Double, _ b: Double) {
        let format = { (value: Double) in value >= 1000 ? String(format: "%.1f ms", value / 1000) : String(format: "%.1f µs", value) }
        print("| \(label) | \(kind) | \(format(a)) | \(format(b)) | \(String(format: "%.2f×", b / a)) |")
    }
    row("first, on a fresh index", results["built-in"]!.fresh, results["plugin"]!.fresh)
    row("later, same index", results["built-in"]!.warm, results["plugin"]!.warm)
}
