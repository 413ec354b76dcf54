// A user's data rights on the sync server's storage: export and erase of one user who holds
// 10,000 registers (two devices' heads in each), timed on SQLite or PostgreSQL, in this process.
//
// Usage: rights-bench sqlite PATH | postgres URL [REGISTERS]
import Foundation
import Logging
import TimelineEngineKit
import TimelineEngineSyncServer

let given = Array(CommandLine.arguments.dropFirst())
guard given.count >= 2, ["sqlite", "postgres"].contains(given[0]) else {
    FileHandle.standardError.write(Data("usage: rights-bench sqlite PATH | postgres URL [REGISTERS]\n".utf8))
    exit(2)
}
let registers = given.count > 2 ? Int(given[2]) ?? 10_000 : 10_000
var logger = Logger(label: "rights-bench")
logger.logLevel = .error
let storage: any RegisterStorage
var pool: Task<Void, Never>?
if given[0] == "sqlite" {
    try? FileManager.default.removeItem(atPath: given[1])
    storage = try SQLiteRegisterStorage(path: given[1])
} else {
    let postgres = try PostgresRegisterStorage(url: given[1], logger: logger, serving: false)
    pool = Task { await postgres.run() }
    storage = postgres
}

let name = "rights-\(UUID().uuidString.prefix(8))"
_ = try await storage.addToken(hash: ServerTokens.hash(ServerTokens.make()), user: name, at: Date())
guard let user = try await storage.user(named: name) else { fatalError("the user was not stored") }
// Each register: a phone's and a laptop's head, as devices send them.
let base = Date(timeIntervalSince1970: 1_790_000_000)
for start in stride(from: 0, to: registers, by: 500) {
    var heads: [StoredHead] = []
    for number in start..<min(registers, start + 500) {
        for (device, sequence) in [("phone", UInt64(number + 1)), ("laptop", UInt64(number + 1))] {
            let record = PositionRecord(
                key: RegisterKey(account: "me", timeline: "list-\(number)"),
                stamp: RegisterStamp(time: HybridTimestamp(milliseconds: 1_790_000_000_000 + UInt64(number), counter: 0), device: device),
                sequence: sequence, savedAt: base, snapshot: PositionSnapshot(postId: "\(number)", viewportY: -12, text: "a post of some length"),
                epoch: .zero, progress: .init(createdAt: 1_790_000_000, postId: "\(number)"))
            heads.append(try StoredHead(record))
        }
    }
    _ = try await storage.merge(heads, user: user)
}

let clock = ContinuousClock()
var started = clock.now
let export = try await storage.export(user: user)
let text = export.json(exportedAt: Date())
let exportTime = clock.now - started
started = clock.now
let erasure = try await storage.erase(user: user, at: Date())
let eraseTime = clock.now - started
func milliseconds(_ duration: Duration) -> String {
    String(format: "%.0f ms", Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
}
print("| storage | registers | heads | export (JSON, \(text.utf8.count / 1024) KB) | erase |")
print("|---|---:|---:|---:|---:|")
print("| \(given[0]) | \(export.registers.count) | \(export.headCount) | \(milliseconds(exportTime)) | \(milliseconds(eraseTime)) |")
if erasure.heads != export.headCount { fatalError("erased \(erasure.heads) heads of \(export.headCount)") }
pool?.cancel()
