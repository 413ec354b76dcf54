// Sync costs: merging registers (10k to 1M), a round with nothing to do over a Directory shared
// by 10 devices, and the save path with the register and the outbox against the history-only
// save of the previous release.
//
// Usage: sync-bench [SIZES...]
import EngineConfiguration
import Foundation
import PositionSync
import SyncModel
import TimelineEngine

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

let sizes = CommandLine.arguments.dropFirst().compactMap { Int($0) }.isEmpty ? [10_000, 100_000, 1_000_000]
    : CommandLine.arguments.dropFirst().compactMap { Int($0) }
let policies: [(String, any MergePolicy)] = [("LastWriterWins", try BuiltInStrategies.registry.build(StrategyNode(name: "LastWriterWins"), kind: .merge)),
                                              ("FurthestRead", try BuiltInStrategies.registry.build(StrategyNode(name: "FurthestRead"), kind: .merge))]
    .map { name, built in
        guard case .merge(let policy) = built else { fatalError("not a merge policy") }
        return (name, policy)
    }
let date = Date(timeIntervalSince1970: 1_790_000_000)

print("## Merging registers: two devices' states, every register written on both (median of 3, after a warm-up)")
print()
print("| registers | policy | merge | registers per second |")
print("|---:|---|---:|---:|")
for size in sizes {
    func records(_ device: String, offset: UInt64) -> [PositionRecord] {
        (0..<size).map { number in
            let stamp = RegisterStamp(time: HybridTimestamp(milliseconds: 1_790_000_000_000 + UInt64(number) + offset, counter: 0), device: device)
            let post = "post\((number * 7 + Int(offset)) % 1000)"
            return PositionRecord(key: RegisterKey(account: "me", timeline: "t\(number)"), stamp: stamp, savedAt: date,
                                  snapshot: PositionSnapshot(postId: post), epoch: .zero,
                                  progress: .init(createdAt: Double((number * 7 + Int(offset)) % 1000), postId: post))
        }
    }
    let local = records("phone", offset: 0), remote = records("laptop", offset: 500)
    // One untimed merge first: the first run of a process pays for mapping its heap, which would
    // fall on whichever policy came first.
    var warm = ReplicaState()
    warm.apply(contentsOf: local, policy: policies[0].1)
    warm.apply(contentsOf: remote, policy: policies[0].1)
    warm = ReplicaState()
    for (name, policy) in policies {
        var times: [Double] = []
        for _ in 0..<3 {
            var state = ReplicaState()
            state.apply(contentsOf: local, policy: policy)
            let started = now()
            state.apply(contentsOf: remote, policy: policy)
            times.append(Double(now() - started) / 1e9)
        }
        let seconds = median(times)
        print("| \(size) | \(name) | \(String(format: "%.3f s", seconds)) | \(Int(Double(size) / seconds)) |")
    }
}

let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sync-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: work.appendingPathComponent("shared"), withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }

var configuration = TimelineConfiguration.defaults
configuration.sync.policy = ComponentSpec(name: "FurthestRead")
configuration.sync.transport = ComponentSpec(name: "Directory", parameters: ["Path": .init(value: .string(work.appendingPathComponent("shared").path))])
let components = try SyncComponents(configuration: configuration)
let scope = StoreScope(account: "me", timeline: "home")
var stores: [(TimelineStore, String)] = []
for number in 0..<10 {
    let store = try TimelineStore(path: work.appendingPathComponent("d\(number).sqlite").path)
    try store.savePosition(PositionSnapshot(postId: "p\(number)", postCreatedAt: date.addingTimeInterval(Double(number))), scope: scope,
                           device: "d\(number)", at: date, policy: components.policy)
    stores.append((store, "d\(number)"))
}
for _ in 0..<2 {
    for (store, device) in stores {
        _ = try SyncRound(store: store, components: components, device: device, gracePeriod: 30 * 86_400).run(at: date)
    }
}
var idle: [Double] = []
for _ in 0..<50 {
    let started = now()
    let report = try SyncRound(store: stores[0].0, components: components, device: "d0", gracePeriod: 30 * 86_400).run(at: date)
    idle.append(Double(now() - started) / 1e6)
    precondition(report.changed.isEmpty)
}
print()
print("## A round with nothing to do: Directory, 10 devices, one register each")
print()
print("median \(String(format: "%.2f", median(idle))) ms over 50 rounds (read 9 files, merge, write one)")

print()
print("## Saving a position: 2000 saves, one transaction each")
print()
print("| save | total | per save |")
print("|---|---:|---:|")
for (label, withSync) in [("history only (the previous release's saveSnapshot)", false), ("register, device position, history and outbox (savePosition)", true)] {
    let store = try TimelineStore(path: work.appendingPathComponent("save-\(withSync).sqlite").path)
    var times: [Double] = []
    for round in 0..<3 {
        let started = now()
        for number in 0..<2000 {
            let snapshot = PositionSnapshot(postId: "p\(number % 50)", postCreatedAt: date.addingTimeInterval(Double(number)), viewportY: -20,
                                            contentOffset: Double(number * 100), index: number % 50, timelineCount: 50,
                                            neighbors: .init(above: ["a1", "a2"], below: ["b1", "b2"]), text: "a post of some length \(number)",
                                            savedAt: date.addingTimeInterval(Double(number + round * 2000)))
            if withSync {
                try store.savePosition(snapshot, scope: scope, device: "phone", at: date.addingTimeInterval(Double(number + round * 2000)),
                                       policy: components.policy)
            } else {
                try store.saveSnapshot(snapshot, scope: scope)
            }
        }
        times.append(Double(now() - started) / 1e6)
    }
    let total = median(times)
    print("| \(label) | \(String(format: "%.0f ms", total)) | \(String(format: "%.1f µs", total * 1000 / 2000)) |")
}
