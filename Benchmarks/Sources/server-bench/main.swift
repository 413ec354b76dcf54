// Load on the sync server (`engine serve`'s SyncServer), in this process, over 127.0.0.1 only:
// an open-loop phase at a fixed write rate with long-polls waiting, then a closed-loop phase of
// clients writing as fast as they are answered. Both are bounded in requests and time, and stop
// by themselves.
//
// `minimal-sqlite` and `minimal-postgres` run the same load on a Hummingbird route that does
// only the write's upsert (MinimalRoute.swift), without long-polls: the framework's own cost.
//
// `hold MODE PATH|URL SECONDS [USERS]` starts the same server, prints `port N` and one `token T`
// line per user, serves for SECONDS and stops: for a load generator of another process
// (`Benchmarks/wrk-writes.lua`, which leaves more of the 2 cores to the server).
//
// `sqlite-sealed` and `postgres-sealed` send the same writes sealed end to end, as a device with
// `Sync.EncryptionPhraseVariable` sends them: keyed hashes for the register and device names, the
// write's seq and key id in the clear, and a real box of the same record sealed
// (ChaCha20-Poly1305, padded). The server never opens a box, so one box sealed once stands for
// every write: the load generator spends nothing on sealing that the server would not.
//
// Usage: server-bench sqlite PATH | postgres URL | minimal-sqlite PATH | minimal-postgres URL | sqlite-sealed PATH | postgres-sealed URL
//                     [RATE] [SECONDS] [USERS] [CLIENTS]
//        server-bench hold MODE PATH|URL SECONDS [USERS]
import AsyncHTTPClient
import Foundation
import GRDB
import Logging
import NIOCore
import NIOHTTP1
import PostgresNIO
import ServiceLifecycle
import TimelineEngineKit
import TimelineEngineSyncServer

let given = Array(CommandLine.arguments.dropFirst())
let modes = ["sqlite", "postgres", "minimal-sqlite", "minimal-postgres", "sqlite-sealed", "postgres-sealed"]
/// With `hold`, how long the server serves another process's load.
let hold = given.first == "hold" && given.count >= 4 ? Double(given[3]) : nil
let arguments = hold == nil ? given : [given[1], given[2], "0", "0"] + given.dropFirst(4)
guard arguments.count >= 2, modes.contains(arguments[0]) else {
    let usage = """
        usage: server-bench \(modes.joined(separator: "|")) PATH|URL [RATE] [SECONDS] [USERS] [CLIENTS]
               server-bench hold \(modes.joined(separator: "|")) PATH|URL SECONDS [USERS]

        """
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}
let rate = arguments.count > 2 ? Double(arguments[2]) ?? 1000 : 1000
let seconds = arguments.count > 3 ? Double(arguments[3]) ?? 10 : 10
let users = arguments.count > 4 ? Int(arguments[4]) ?? 50 : 50
let clients = arguments.count > 5 ? Int(arguments[5]) ?? 16 : 16

var logger = Logger(label: "server-bench")
logger.logLevel = .error
let minimal = arguments[0].hasPrefix("minimal-")
/// Whether the writes are sealed end to end; the storage is the mode without `-sealed`.
let sealed = arguments[0].hasSuffix("-sealed")
let storageMode = sealed ? String(arguments[0].dropLast("-sealed".count)) : arguments[0]
var storageTask: Task<Void, Never>?
var port = 0
let tokens = (0..<users).map { _ in ServerTokens.make() }
let stopServer: @Sendable () async -> Void
if minimal {
    let store: MinimalStore
    if arguments[0] == "minimal-sqlite" {
        try? FileManager.default.removeItem(atPath: arguments[1])
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        store = .sqlite(try DatabasePool(path: arguments[1], configuration: configuration))
    } else {
        let postgres = try PostgresRegisterStorage.client(url: arguments[1], logger: logger)
        storageTask = Task { await postgres.run() }
        store = .postgres(postgres)
    }
    let route = try await startMinimalRoute(store, logger: logger)
    port = route.port
    stopServer = {
        await route.group.triggerGracefulShutdown()
        try? await route.task.value
    }
} else {
    let storage: any RegisterStorage
    if storageMode == "sqlite" {
        try? FileManager.default.removeItem(atPath: arguments[1])
        storage = try SQLiteRegisterStorage(path: arguments[1])
    } else {
        let postgres = try PostgresRegisterStorage(url: arguments[1], logger: logger)
        storageTask = Task { await postgres.run() }
        storage = postgres
    }
    let server = SyncServer(storage: storage, settings: ServerSettings(port: 0, maxWait: 30), logger: logger)
    let (ports, portContinuation) = AsyncStream<Int>.makeStream()
    let group = server.serviceGroup(signals: []) { port in portContinuation.yield(port) }
    let serverTask = Task { try await group.run() }
    for await bound in ports {
        port = bound
        break
    }
    let run = UUID().uuidString.prefix(8)
    for (user, token) in tokens.enumerated() {
        _ = try await storage.addToken(hash: ServerTokens.hash(token), user: "bench-\(run)-\(user)", at: Date())
    }
    stopServer = {
        await group.triggerGracefulShutdown()
        try? await serverTask.value
    }
}
let base = "http://127.0.0.1:\(port)/v1/registers"
if let hold {
    var text = "port \(port)\n"
    for token in tokens { text += "token \(token)\n" }
    FileHandle.standardOutput.write(Data(text.utf8))
    try? await Task.sleep(for: .seconds(hold))
    await stopServer()
    exit(0)
}

var configuration = HTTPClient.Configuration()
configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 512)
let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)

/// What a sealed write carries: the key's id, a box of a write sealed, and the sealed names of
/// the 5 timelines and 4 devices.
struct Sealing {
    let keyId: String
    let box: String
    let timelines: [String]
    let devices: [String]

    init() throws {
        let keyring = SyncKeyring(current: try SyncKey(phrase: "server-bench sealing phrase"))
        let record = try SyncWireCoding.decode(Data(plainDocument(1_000_000, device: 0).utf8)).records[0]
        let sealed = try SealedRecord.seal(record, with: keyring)
        keyId = keyring.keyId
        box = Data(sealed.box).base64EncodedString()
        timelines = (0..<5).map { keyring.sealedName(ofRegister: RegisterKey(account: "me", timeline: "t\($0)")) }
        devices = (0..<4).map { keyring.sealedName(ofDevice: "d\($0)") }
    }
}
let sealing = sealed ? try Sealing() : nil

/// A device's document with one head; `number` orders the writes (it is their sequence number).
func document(_ number: Int, device: Int) -> String {
    guard let sealing else { return plainDocument(number, device: device) }
    let name = sealing.devices[device]
    return
        #"{"format":"timeline-sync","version":2,"device":"\#(name)","records":[{"account":"sealed","timeline":"\#(sealing.timelines[number % 5])","device":"\#(name)","seq":\#(number + 1),"key":"\#(sealing.keyId)","sealed":"\#(sealing.box)"}]}"#
}

/// A device's document with one head in the clear.
func plainDocument(_ number: Int, device: Int) -> String {
    let hlc = String(format: "%016llx", UInt64(1_790_000_000_000 + number) << 16)
    return
        #"{"format":"timeline-sync","version":2,"device":"d\#(device)","records":[{"account":"me","timeline":"t\#(number % 5)","hlc":"\#(hlc)","device":"d\#(device)","seq":\#(number + 1),"context":{"d\#((device + 1) % 4)":\#(number)},"savedAt":"2026-11-24T00:00:00Z","epoch":{"hlc":"0000000000000000","device":""},"progress":{"createdAt":\#(number),"postId":"p\#(number)"},"position":{"postId":"p\#(number)","viewportY":-12,"contentOffset":4000}}]}"#
}

/// One write; its status.
func post(_ number: Int) async -> Int {
    var request = HTTPClientRequest(url: base)
    request.method = .POST
    request.headers.add(name: "Authorization", value: "Bearer \(tokens[number % users])")
    request.headers.add(name: "Content-Type", value: "application/json")
    request.body = .bytes(ByteBuffer(string: document(number, device: number % 4)))
    do {
        let response = try await client.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    } catch {
        return 0
    }
}

func quantile(_ sorted: [Double], _ q: Double) -> Double {
    sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int((q * Double(sorted.count)).rounded(.up)) - 1)]
}

final class Collector: @unchecked Sendable {
    let lock = NSLock()
    var latencies: [Double] = []
    var failures = 0
    var wakes = 0
    /// When the last write was answered, since the phase started.
    var lastDone = 0.0
    func add(_ seconds: Double, ok: Bool, doneAt: Double = 0) {
        lock.withLock {
            if ok { latencies.append(seconds) } else { failures += 1 }
            lastDone = max(lastDone, doneAt)
        }
    }
    func woke() { lock.withLock { wakes += 1 } }
}

let clock = ContinuousClock()
func elapsed(since start: ContinuousClock.Instant) -> Double {
    let duration = clock.now - start
    return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

// Open loop: writes scheduled at `rate` per second; latency counts from the scheduled time, so
// a server falling behind shows as latency, not as a lower rate. Its first second warms the
// server up (connections made, statements prepared, every path used once) and is reported in a
// row of its own; the open loop's row is the `seconds` after it.
let open = Collector()
let warm = Collector()
let warmup = 1.0
let warmCount = Int(rate * warmup)
let total = warmCount + Int(rate * seconds)
let openStart = clock.now
let stopPolls = Collector()
await withTaskGroup(of: Void.self) { tasks in
    // Half the users keep a long-poll waiting, re-armed after each answer (the minimal route
    // has none).
    for user in 0..<(minimal ? 0 : users / 2) {
        tasks.addTask {
            var cursor = 0
            while elapsed(since: openStart) < warmup + seconds {
                var request = HTTPClientRequest(url: "\(base)?since=\(cursor)&wait=5")
                request.headers.add(name: "Authorization", value: "Bearer \(tokens[user])")
                guard let response = try? await client.execute(request, timeout: .seconds(30)),
                    let body = try? await response.body.collect(upTo: 16 << 20)
                else { continue }
                let text = String(buffer: body)
                if let range = text.range(of: #""cursor":"#), let value = Int(text[range.upperBound...].prefix { $0.isNumber }) {
                    if value > cursor { stopPolls.woke() }
                    cursor = value
                }
            }
        }
    }
    for number in 0..<total {
        let due = Double(number) / rate
        let wait = due - elapsed(since: openStart)
        if wait > 0 { try? await Task.sleep(for: .nanoseconds(Int64(wait * 1e9))) }
        tasks.addTask {
            let status = await post(number)
            let done = elapsed(since: openStart)
            if number < warmCount {
                warm.add(done - due, ok: status == 200)
            } else {
                open.add(done - due, ok: status == 200, doneAt: done - warmup)
            }
        }
    }
    await tasks.waitForAll()
}
// The writes' span, not the long-polls' last wait.
let openSeconds = open.lastDone
let openSorted = open.latencies.sorted()
let warmSorted = warm.latencies.sorted()

// Closed loop: `clients` writers, each sending its next write when the last is answered.
let closed = Collector()
let closedStart = clock.now
let closedSeconds = min(seconds, 10)
let counter = Collector()
await withTaskGroup(of: Void.self) { tasks in
    for writer in 0..<clients {
        tasks.addTask {
            var number = 10_000_000 + writer
            while elapsed(since: closedStart) < closedSeconds {
                let started = clock.now
                let status = await post(number)
                closed.add(elapsed(since: started), ok: status == 200)
                number += clients
            }
        }
    }
    await tasks.waitForAll()
}
_ = counter
let closedElapsed = elapsed(since: closedStart)
let closedSorted = closed.latencies.sorted()

print("| storage | phase | writes | failed | writes/s | p50 ms | p99 ms | long-poll wakes |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
func row(_ phase: String, _ collector: Collector, _ sorted: [Double], _ duration: Double, wakes: String) {
    print(
        "| \(arguments[0]) | \(phase) | \(sorted.count) | \(collector.failures) | \(Int(Double(sorted.count) / duration)) | "
            + "\(String(format: "%.2f", quantile(sorted, 0.5) * 1000)) | \(String(format: "%.2f", quantile(sorted, 0.99) * 1000)) | \(wakes) |")
}
row("its first second, after start", warm, warmSorted, warmup, wakes: "-")
row("open loop at \(Int(rate))/s, \(minimal ? 0 : users / 2) long-polls", open, openSorted, openSeconds, wakes: "\(stopPolls.wakes)")
row("closed loop, \(clients) clients", closed, closedSorted, closedElapsed, wakes: "-")

try await client.shutdown().get()
await stopServer()
storageTask?.cancel()
