// The store's costs, each beside a peer in the same run:
// - time to first timeline from a store of 10k cached posts, against decoding the same posts
//   from JSON (the engine's reader and Foundation's JSONDecoder);
// - saved positions per second with autosave semantics (one transaction per save), against a
//   plain SQLite insert loop on the same settings;
// - store size per post, against the same posts as JSON;
// - maintenance on a store of 1M posts.
// Usage: store-bench POSTS.jsonl [LARGE]   (texts from POSTS.jsonl, cycled; LARGE defaults to 1,000,000)
import Foundation
import GRDB
import TimelineEngineKit

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
func milliseconds(since start: UInt64) -> Double { Double(now() - start) / 1e6 }
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

let arguments = Array(CommandLine.arguments.dropFirst())
let texts: [String] = {
    if let file = arguments.first, let data = FileManager.default.contents(atPath: file),
        let timeline = try? TimelineFormat.read(data, format: .jsonl)
    {
        return timeline.posts.compactMap(\.text)
    }
    return ["a post about the timeline"]
}()
let large = arguments.dropFirst().first.flatMap { Int($0) } ?? 1_000_000
let base = Date(timeIntervalSince1970: 1_700_000_000)

func makePosts(_ count: Int) -> [Post] {
    (0..<count).map { i in
        Post(
            id: String(1_600_000_000_000_000_000 + i), createdAt: base.addingTimeInterval(Double(-30 * i)),
            author: "user\(i % 997)", text: texts[i % texts.count])
    }
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-bench-\(ProcessInfo.processInfo.processIdentifier)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
func fileSize(_ path: String) -> Int {
    ["", "-wal", "-shm"].reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: path + $1)[.size] as? Int) ?? 0) }
}
let scope = StoreScope(account: "bench", timeline: "home")

// 1. Time to first timeline, 10k posts.
let posts10k = makePosts(10_000)
let storePath = directory.appendingPathComponent("10k.sqlite").path
do {
    let store = try await TimelineStore(path: storePath)
    try await store.timelines.saveTimeline(posts10k, scope: scope, viewportHeight: 800, refreshedAt: Date())
}
let json = Data(
    try JSONWriter().write(
        .dictionary([
            ("posts", .array(posts10k.map(PostCoding.value(of:)))), ("viewportHeight", .real(800)),
        ])
    ).utf8)
try json.write(to: directory.appendingPathComponent("10k.json"))

struct CodablePost: Decodable {
    let id: String
    let createdAt: String
    let author: String?
    let text: String?
}
struct CodableTimeline: Decodable {
    let posts: [CodablePost]
    let viewportHeight: Double
}

var openAndRead: [Double] = []
var readOnly: [Double] = []
var engineJSON: [Double] = []
var foundationJSON: [Double] = []
let runs = 9
for _ in 0..<runs {
    var start = now()
    let store = try await TimelineStore(path: storePath)
    let first = try await store.timelines.timeline(scope: scope)
    openAndRead.append(milliseconds(since: start))
    precondition(first?.posts.count == 10_000)
    start = now()
    _ = try await store.timelines.timeline(scope: scope)
    readOnly.append(milliseconds(since: start))
    start = now()
    let data = try Data(contentsOf: directory.appendingPathComponent("10k.json"))
    let decoded = try TimelineFormat.read(data, format: .engine)
    engineJSON.append(milliseconds(since: start))
    precondition(decoded.posts.count == 10_000)
    start = now()
    let foundation = try JSONDecoder().decode(CodableTimeline.self, from: Data(contentsOf: directory.appendingPathComponent("10k.json")))
    foundationJSON.append(milliseconds(since: start))
    precondition(foundation.posts.count == 10_000)
}
// CPython's json.load on the same file, timed inside Python (no start-up).
func pythonJSONMilliseconds(_ path: String) -> Double? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [
        "python3", "-c",
        """
        import json, sys, time
        times = []
        for _ in range(9):
            start = time.perf_counter(); json.load(open(sys.argv[1], "rb")); times.append(time.perf_counter() - start)
        print(sorted(times)[4] * 1000)
        """, path,
    ]
    let pipe = Pipe()
    process.standardOutput = pipe
    guard (try? process.run()) != nil else { return nil }
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Double(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
}
let pythonJSON = pythonJSONMilliseconds(directory.appendingPathComponent("10k.json").path)

print("## Time to first timeline, 10,000 cached posts (median of \(runs))")
print()
print("| how | time |")
print("|---|---|")
print(String(format: "| store: open the file and read the timeline | %.1f ms |", median(openAndRead)))
print(String(format: "| store: read the timeline (store already open) | %.1f ms |", median(readOnly)))
print(String(format: "| JSON file, the engine's reader (`TimelineFormat.read`) | %.1f ms |", median(engineJSON)))
print(String(format: "| JSON file, Foundation `JSONDecoder` (strings only, no dates) | %.1f ms |", median(foundationJSON)))
if let pythonJSON { print(String(format: "| JSON file, CPython `json.load` (dicts, no posts) | %.1f ms |", pythonJSON)) }
print()

// 2. Saved positions per second, autosave semantics: each save is its own transaction.
let saves = 2_000
let snapshotStore = try await TimelineStore(path: directory.appendingPathComponent("snapshots.sqlite").path)
var start = now()
for i in 0..<saves {
    let post = posts10k[i % 500]
    try await snapshotStore.positions.saveSnapshot(
        PositionSnapshot(
            postId: post.id, postCreatedAt: post.createdAt, viewportY: -Double(i % 300),
            contentOffset: Double(i * 97), viewportHeight: 800, index: i % 500, timelineCount: 10_000,
            neighbors: .init(above: [posts10k[(i + 1) % 500].id], below: [posts10k[(i + 2) % 500].id]),
            text: post.text, savedAt: base.addingTimeInterval(Double(i))), scope: scope)
}
let snapshotRate = Double(saves) / (milliseconds(since: start) / 1000)
let plain = try DatabaseQueue(path: directory.appendingPathComponent("plain.sqlite").path)
try plain.writeWithoutTransaction { db in
    try db.execute(sql: "PRAGMA journal_mode = WAL")
    try db.execute(sql: "PRAGMA synchronous = NORMAL")
    try db.execute(
        sql: "CREATE TABLE t (account TEXT, timeline TEXT, postId TEXT, savedAt REAL, snapshot TEXT, PRIMARY KEY (account, timeline, postId))")
}
start = now()
for i in 0..<saves {
    try plain.write { db in
        try db.execute(
            sql: "INSERT OR REPLACE INTO t VALUES (?, ?, ?, ?, ?)",
            arguments: ["bench", "home", posts10k[i % 500].id, Double(i), String(repeating: "x", count: 400)])
    }
}
let plainRate = Double(saves) / (milliseconds(since: start) / 1000)
print("## Saved positions per second (\(saves) saves, one transaction each, WAL, synchronous NORMAL)")
print()
print("| how | saves/s |")
print("|---|---|")
print(String(format: "| `TimelineStore.saveSnapshot` (JSON-encoded snapshot) | %.0f |", snapshotRate))
print(String(format: "| plain SQLite insert loop (`INSERT OR REPLACE`, 400-byte value) | %.0f |", plainRate))
print()

// 3. Size per post.
let storeBytes = fileSize(storePath)
print("## Size per post (10,000 posts)")
print()
print("| form | bytes/post |")
print("|---|---|")
print(String(format: "| store file (SQLite, with its indexes) | %.0f |", Double(storeBytes) / 10_000))
print(String(format: "| engine JSON | %.0f |", Double(json.count) / 10_000))
print()

// 4. Maintenance on a large store.
let largePath = directory.appendingPathComponent("large.sqlite").path
let largeStore = try await TimelineStore(path: largePath)
let largePosts = makePosts(large)
start = now()
try await largeStore.timelines.saveTimeline(largePosts, scope: scope, refreshedAt: Date())
let insertTime = milliseconds(since: start)
let plainLarge = try DatabaseQueue(path: directory.appendingPathComponent("plain-large.sqlite").path)
try plainLarge.writeWithoutTransaction { db in
    try db.execute(sql: "PRAGMA journal_mode = WAL")
    try db.execute(sql: "PRAGMA synchronous = NORMAL")
    try db.execute(sql: "CREATE TABLE p (id TEXT PRIMARY KEY, position INTEGER, createdAt REAL, author TEXT, text TEXT)")
}
start = now()
try plainLarge.write { db in
    let statement = try db.makeStatement(sql: "INSERT INTO p VALUES (?, ?, ?, ?, ?)")
    for (position, post) in largePosts.enumerated() {
        try statement.execute(arguments: [post.id, position, post.createdAt.timeIntervalSince1970, post.author, post.text])
    }
}
let plainInsertTime = milliseconds(since: start)
let policies = try CachePolicyBuilder().maintenancePolicies()
start = now()
let roomy = try CachePolicyBuilder(
    configuration: ConfigurationLoader().read(
        data: Data(#"{"TimelineCache": {"MaxCacheSize": \#(min(large, 1_000_000))}}"#.utf8)
    ).configuration
).timelineCache()
let steady = try await largeStore.performMaintenance(
    timelinePolicy: roomy, historyPolicy: policies.history,
    readPostsPolicy: policies.readPosts, now: Date())
let steadyTime = milliseconds(since: start)
start = now()
let trimmed = try await largeStore.performMaintenance(
    timelinePolicy: policies.timeline, historyPolicy: policies.history,
    readPostsPolicy: policies.readPosts, now: Date())
let trimTime = milliseconds(since: start)
start = now()
try plainLarge.write { db in try db.execute(sql: "DELETE FROM p WHERE position >= 500") }
let plainDeleteTime = milliseconds(since: start)
print("## A store of \(large.formatted()) cached posts")
print()
print("| operation | time |")
print("|---|---|")
print(String(format: "| store the timeline (`saveTimeline`, one transaction) | %.2f s |", insertTime / 1000))
print(String(format: "| plain SQLite insert loop, same rows, one transaction | %.2f s |", plainInsertTime / 1000))
print(String(format: "| `performMaintenance`, nothing to evict (%d removed) | %.2f s |", steady.cachedPosts, steadyTime / 1000))
print(String(format: "| `performMaintenance`, default policy: TTL 7 d then LRU 500 (%d removed) | %.2f s |", trimmed.cachedPosts, trimTime / 1000))
print(String(format: "| plain SQLite `DELETE` of the same rows, by a condition, one transaction | %.2f s |", plainDeleteTime / 1000))
print(String(format: "| store file before maintenance | %.0f MB |", Double(fileSize(largePath)) / 1e6))
