import Foundation
// Sync costs: resolving registers of three heads each (10k to 1M) under every merge policy, on
// one core and on all; merging two devices' heads; a round with nothing to do over a Directory
// shared by 10 devices; the save path with its causal context against the history-only save;
// and sealing end to end: a key from a phrase, a head sealed and opened.
//
// Usage: sync-bench [SIZES...]
import TimelineEngineConfiguration
import TimelineEngineKit
import TimelineEnginePositionSync
import TimelineEngineSyncModel

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted[sorted.count / 2]
}

let sizes =
    CommandLine.arguments.dropFirst().compactMap { Int($0) }.isEmpty
    ? [10_000, 100_000, 1_000_000]
    : CommandLine.arguments.dropFirst().compactMap { Int($0) }
let policies: [(String, any MergePolicy)] = ["CausalFurthest", "LastWriterWins", "FurthestRead"].map { name in
    guard let policy = try? BuiltInStrategies.registry.mergePolicy(ComponentSpec(name: name)) else { fatalError("\(name)") }
    return (name, policy)
}
let date = Date(timeIntervalSince1970: 1_790_000_000)
let cores = ProcessInfo.processInfo.activeProcessorCount

/// Register `number`'s heads on the phone, the laptop and the tablet: a third of the registers
/// have one head that saw the others, two thirds concurrent heads, some with clock bounds and
/// glances, as a user's registers would after a while.
func heads(_ number: Int) -> [PositionRecord] {
    let key = RegisterKey(account: "me", timeline: "t\(number)")
    return ["laptop", "phone", "tablet"].enumerated().map { offset, device in
        let stamp = RegisterStamp(
            time: HybridTimestamp(milliseconds: 1_790_000_000_000 + UInt64(number % 977 + offset * 311), counter: 0), device: device)
        let post = "post\((number * 7 + offset * 131) % 1000)"
        let saw = number % 3 == 0 && offset == 2 ? [("laptop", UInt64(40)), ("phone", UInt64(40))] : [(String, UInt64)]()
        return PositionRecord(
            key: key, stamp: stamp, sequence: UInt64(40 + offset), context: VersionVector(saw), savedAt: date,
            snapshot: PositionSnapshot(postId: post), epoch: .zero,
            progress: .init(createdAt: Double((number * 7 + offset * 131) % 1000), postId: post),
            visit: number % 5 == 0 ? .init(seconds: 8, posts: 1) : .init(seconds: 200, posts: 20),
            moves: .init(older: 12, newer: 3), clocks: number % 2 == 0 ? ClockOffsets([("laptop", -1_500), ("phone", -900)]) : .empty)
    }
}

print("## Resolving registers of three heads each (median of 3, after a warm-up; \(cores) cores)")
print()
print("| registers | policy | one core | all cores | registers per second (all cores) |")
print("|---:|---|---:|---:|---:|")
for size in sizes {
    var state = ReplicaState()
    for number in 0..<size { state.apply(contentsOf: heads(number)) }
    let registers = Array(state.registers.values)
    for (name, policy) in policies {
        @Sendable func resolve(_ slice: ArraySlice<Register>) -> Int {
            var found = 0
            for register in slice where policy.value(of: register) != nil { found += 1 }
            return found
        }
        _ = resolve(registers[...])
        var single: [Double] = []
        var parallel: [Double] = []
        for _ in 0..<3 {
            var started = now()
            precondition(resolve(registers[...]) == size)
            single.append(Double(now() - started) / 1e9)
            started = now()
            let chunk = (registers.count + cores - 1) / cores
            // Each part writes its own slot.
            nonisolated(unsafe) let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: cores)
            counts.initialize(repeating: 0)
            defer { counts.deallocate() }
            DispatchQueue.concurrentPerform(iterations: cores) { part in
                counts[part] = resolve(registers[min(registers.count, part * chunk)..<min(registers.count, (part + 1) * chunk)])
            }
            precondition(counts.reduce(0, +) == size)
            parallel.append(Double(now() - started) / 1e9)
        }
        print(
            "| \(size) | \(name) | \(String(format: "%.3f s", median(single))) | \(String(format: "%.3f s", median(parallel))) | \(Int(Double(size) / median(parallel))) |"
        )
    }
}

print()
print("## Merging: a device's heads into a replica holding another's, every register on both (median of 3)")
print()
print("| registers | merge | heads per second |")
print("|---:|---:|---:|")
for size in sizes {
    let local = (0..<size).map { heads($0)[1] }
    let remote = (0..<size).map { heads($0)[0] }
    var times: [Double] = []
    for _ in 0..<3 {
        var state = ReplicaState()
        state.apply(contentsOf: local)
        let started = now()
        state.apply(contentsOf: remote)
        times.append(Double(now() - started) / 1e9)
    }
    print("| \(size) | \(String(format: "%.3f s", median(times))) | \(Int(Double(size) / median(times))) |")
}

let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("sync-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: work.appendingPathComponent("shared"), withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }

var configuration = TimelineConfiguration.defaults
configuration.sync.transport = ComponentSpec(
    name: "Directory", parameters: ["Path": .init(value: .string(work.appendingPathComponent("shared").path))])
let components = try SyncComponents(configuration: configuration)
let scope = StoreScope(account: "me", timeline: "home")
var stores: [(TimelineStore, String)] = []
for number in 0..<10 {
    let store = try await TimelineStore(path: work.appendingPathComponent("d\(number).sqlite").path)
    try await store.sync.savePosition(
        PositionSnapshot(postId: "p\(number)", postCreatedAt: date.addingTimeInterval(Double(number))), scope: scope,
        device: "d\(number)", at: date)
    stores.append((store, "d\(number)"))
}
for _ in 0..<2 {
    for (store, device) in stores {
        _ = try await SyncRound(store: store, components: components, device: device, gracePeriod: 30 * 86_400).run(at: date)
    }
}
var idle: [Double] = []
for _ in 0..<50 {
    let started = now()
    let report = try await SyncRound(store: stores[0].0, components: components, device: "d0", gracePeriod: 30 * 86_400).run(at: date)
    idle.append(Double(now() - started) / 1e6)
    precondition(report.changed.isEmpty)
}
print()
print("## A round with nothing to do: Directory, 10 devices, one register each")
print()
print("median \(String(format: "%.2f", median(idle))) ms over 50 rounds (read 9 files, merge, write one)")

print()
print("## Saving a position: 2000 saves, one transaction each (median of 3)")
print()
print("| save | total | per save |")
print("|---|---:|---:|")
let saves: [(String, Bool, Bool, Bool)] = [
    ("history only (saveSnapshot)", false, false, false),
    ("savePosition: the head, history and outbox, alone in its register", true, false, false),
    ("savePosition with its causal context: two other devices' heads in the register", true, true, false),
    ("savePosition carrying the 1,024 posts read last, of 2,000 read", true, false, true),
]
for (label, withSync, others, reads) in saves {
    let store = try await TimelineStore(path: work.appendingPathComponent("save-\(withSync)-\(others)-\(reads).sqlite").path)
    if reads {
        // What a save carries to the other devices: the latest reads of its scope, with content.
        let read = (0..<2000).map { number in
            Post(id: "r\(number)", createdAt: date, author: "author\(number % 40)", text: "a post of some length number \(number)", height: 100)
        }
        try await store.positions.markRead(posts: read, scope: scope, at: date)
    }
    if others {
        // Two other devices' heads in the register, and clock bounds: what a save reads and carries.
        _ = try await store.sync.applyRemote(
            [heads(0)[0], heads(0)[2]].map { head in
                var moved = head
                moved.key = RegisterKey(account: scope.account, timeline: scope.timeline)
                return moved
            }, at: date, maxClockOffset: SyncSettings().maxClockOffset)
    }
    var times: [Double] = []
    for round in 0..<3 {
        let started = now()
        for number in 0..<2000 {
            let snapshot = PositionSnapshot(
                postId: "p\(number % 50)", postCreatedAt: date.addingTimeInterval(Double(number)), viewportY: -20,
                contentOffset: Double(number * 100), index: number % 50, timelineCount: 50,
                neighbors: .init(above: ["a1", "a2"], below: ["b1", "b2"]), text: "a post of some length \(number)",
                savedAt: date.addingTimeInterval(Double(number + round * 2000)))
            if withSync {
                try await store.sync.savePosition(
                    snapshot, scope: scope, device: "phone", visit: .init(seconds: 40, posts: 3),
                    at: date.addingTimeInterval(Double(number + round * 2000)))
            } else {
                try await store.positions.saveSnapshot(snapshot, scope: scope)
            }
        }
        times.append(Double(now() - started) / 1e6)
    }
    let total = median(times)
    print("| \(label) | \(String(format: "%.0f ms", total)) | \(String(format: "%.1f µs", total * 1000 / 2000)) |")
}

print()
print("## The façade: 2000 scrolls that each save, on the caller's thread, then until stored (median of 3)")
print()
print("| | total | per scroll |")
print("|---|---:|---:|")
do {
    let posts = (0..<50).map { Post(id: "p\($0)", createdAt: date.addingTimeInterval(Double(-60 * $0)), height: 100) }
    let index = TimelineIndex(Timeline(posts: posts, viewportHeight: 600))
    var onCaller: [Double] = []
    var stored: [Double] = []
    for round in 0..<3 {
        let store = try await TimelineStore(path: work.appendingPathComponent("facade-\(round).sqlite").path)
        // Each scroll is AutoSaveInterval (2 s) after the last: each saves.
        let clock = Locked(date)
        let engine = try await TimelineEngine(store: store, clock: { clock.withLock { $0 } })
        let started = now()
        for number in 0..<2000 {
            clock.withLock { $0 += 3 }
            engine.observeScroll(offset: Double((number % 40) * 100), viewportHeight: 600, in: index)
        }
        onCaller.append(Double(now() - started) / 1e6)
        await engine.flush()
        stored.append(Double(now() - started) / 1e6)
    }
    print(
        "| observeScroll returns (the save queued for the writer) | \(String(format: "%.0f ms", median(onCaller))) | \(String(format: "%.1f µs", median(onCaller) * 1000 / 2000)) |"
    )
    print(
        "| every save in the store (flush) | \(String(format: "%.0f ms", median(stored))) | \(String(format: "%.1f µs", median(stored) * 1000 / 2000)) |"
    )
}

print()
print("## Sealing end to end: a key from a phrase, and one head sealed and opened (median of 5; 2,000 heads each)")
print()
print("| | per key or per head |")
print("|---|---:|")
do {
    var derivations: [Double] = []
    var key: SyncKey?
    for _ in 0..<5 {
        let started = now()
        key = try SyncKey(phrase: "quiet-maple-river-7Q-lantern-orbit")
        derivations.append(Double(now() - started) / 1e6)
    }
    print("| a key from a recovery phrase (scrypt, N = 2^15, r = 8, p = 1) | \(String(format: "%.0f ms", median(derivations))) |")
    let keyring = SyncKeyring(current: key!)
    var record = heads(1)[0]
    record.snapshot?.text = "tomatoes under glass in November, and what the frost did to them"
    var withReads = record
    withReads.reads = (0..<PositionRecord.maximumReads).map { ReadDigest(post: UInt32($0), content: UInt32($0 * 7)) }
    for (label, head) in [("a head", record), ("a head carrying 1,024 reads", withReads)] {
        var sealing: [Double] = []
        var opening: [Double] = []
        var sealed = try SealedRecord.seal(head, with: keyring)
        for _ in 0..<5 {
            var started = now()
            for _ in 0..<2000 { sealed = try SealedRecord.seal(head, with: keyring) }
            sealing.append(Double(now() - started) / 2000 / 1e3)
            started = now()
            for _ in 0..<2000 { _ = try sealed.open(with: keyring) }
            opening.append(Double(now() - started) / 2000 / 1e3)
        }
        let plain = try JSONWriter(style: .compact).write(SyncWireCoding.value(of: head)).utf8.count
        let wire = try JSONWriter(style: .compact).write(sealed.value).utf8.count
        print("| \(label) sealed (\(plain) bytes in the clear, \(wire) sealed) | \(String(format: "%.1f µs", median(sealing))) |")
        print("| \(label) opened (checked and decoded) | \(String(format: "%.1f µs", median(opening))) |")
    }
}
