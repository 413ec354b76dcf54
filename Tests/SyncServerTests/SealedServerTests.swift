#if SyncServer
import TimelineEngineCausalFurthest
import TimelineEngineSupport
import Foundation
import TimelineEngineHTTP
import Logging
import TimelineEngineNIOHTTP
import TimelineEnginePositionSync
import TimelineEngineSyncModel
import TimelineEngineSyncSealing
import TimelineEngineSyncServer
import Testing
import TimelineEngineTestSupport
import TimelineEngineCore
import TimelineEngineStore

/// Positions written through the sync server sealed end to end: the devices converge, and
/// neither the server's database (SQLite's file, PostgreSQL's tables) nor its log, at its most
/// verbose, holds a post id, an excerpt, an author, a timeline's or an account's name or a
/// device's name that was written.
@Suite("The server cannot read sealed positions", .timeLimit(.minutes(5)))
struct SealedServerTests {
    /// Every line a logger was given, with its metadata.
    final class CapturedLog: Sendable {
        let lines = Locked<[String]>([])

        var logger: Logger {
            var logger = Logger(label: "sealed-server") { _ in Handler(log: self) }
            logger.logLevel = .trace
            return logger
        }

        struct Handler: LogHandler {
            let log: CapturedLog
            var metadata: Logger.Metadata = [:]
            var logLevel: Logger.Level = .trace

            subscript(metadataKey key: String) -> Logger.Metadata.Value? {
                get { metadata[key] }
                set { metadata[key] = newValue }
            }

            func log(event: LogEvent) {
                let all = metadata.merging(event.metadata ?? [:]) { $1 }
                log.lines.withLock { $0.append("\(event.level) \(event.message) \(all) \(event.source) \(event.function)") }
            }
        }
    }

    /// Names and texts no ciphertext will spell by chance: unique to this run.
    struct Secrets {
        let tag = UUID().uuidString.prefix(8).lowercased()
        var devices: [String] { ["phone", "laptop", "tablet"].map { "sealed-\($0)-\(tag)" } }
        var account: String { "anna-\(tag)@example.social" }
        var timelines: [String] { ["home-\(tag)", "lists/gardening-\(tag)"] }
        func post(_ number: Int) -> String { "1134567890\(tag.utf8.map { String($0 % 10) }.joined())\(number)" }
        func excerpt(_ number: Int) -> String { "tomatoes under glass \(tag) number \(number)" }
        var author: String { "gardener-\(tag)" }

        /// Every one of them, for a scan.
        func all(posts: Int) -> [String] {
            devices + [account, author] + timelines + (0..<posts).flatMap { [post($0), excerpt($0)] }
        }
    }

    /// A key as an app supplies it: deriving one from a phrase (scrypt, 32 MiB) is SealingTests'
    /// concern, and would take long under the thread sanitizer.
    static let key: [UInt8] = Array(repeating: 0x5A, count: SyncKey.byteCount)

    /// Three devices save, read and forget positions in two timelines through `harness`, sealed,
    /// in rounds; returns how many posts were written. Every device ends with every head.
    static func write(through harness: ServerHarness, _ secrets: Secrets, directory: URL) async throws -> Int {
        let keyring = SyncKeyring(current: try SyncKey(bytes: key))
        let token = try await harness.token(for: "sealed-\(secrets.tag)")
        let base = URL(string: "http://127.0.0.1:\(harness.port)")!
        var stores: [TimelineStore] = []
        var rounds: [SyncRound] = []
        for device in secrets.devices {
            let store = try await TimelineStore(path: directory.appendingPathComponent("\(device)-\(harness.port).store").path)
            stores.append(store)
            let transport = HTTPTransport(base: base, environment: { ["ENGINE_SYNC_TOKEN": token] }, exchange: NIOHTTPExchange())
                .sealing(with: keyring)
            rounds.append(
                SyncRound(
                    store: store, components: .with(policy: CausalFurthestPolicy(), transport: transport), device: device, gracePeriod: 30 * 86_400))
        }
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        var number = 0
        for step in 0..<12 {
            let device = step % 3
            let at = start.addingTimeInterval(Double(step * 60))
            let scope = StoreScope(account: secrets.account, timeline: secrets.timelines[step % 2])
            if step == 7 {
                _ = try await stores[device].sync.forgetPosition(scope: scope, device: secrets.devices[device], at: at)
            } else {
                let post = Post(
                    id: secrets.post(number), createdAt: at.addingTimeInterval(-600), author: secrets.author, text: secrets.excerpt(number),
                    height: 120)
                try await stores[device].positions.markRead(posts: [post], scope: scope, at: at)
                _ = try await stores[device].sync.savePosition(
                    PositionSnapshot(
                        postId: post.id, postCreatedAt: post.createdAt, text: post.text, author: post.author, deviceId: secrets.devices[device]),
                    scope: scope, device: secrets.devices[device], explicit: false, at: at)
                number += 1
            }
            _ = try await rounds[device].run(at: at.addingTimeInterval(1))
        }
        for (device, round) in rounds.enumerated() { _ = try await round.run(at: start.addingTimeInterval(Double(3600 + device))) }
        // Every device holds every device's head of both timelines, opened.
        for store in stores {
            for timeline in secrets.timelines {
                let register = try await store.sync.register(of: RegisterKey(account: secrets.account, timeline: timeline))
                #expect(Set(register.heads.map(\.device)) == Set(secrets.devices), "\(timeline)")
            }
        }
        let register = try await stores[0].sync.register(of: RegisterKey(account: secrets.account, timeline: secrets.timelines[1]))
        #expect(register.head(of: secrets.devices[1])?.isTombstone == true)
        #expect(register.head(of: secrets.devices[2])?.snapshot?.text == secrets.excerpt(10))
        return number
    }

    /// The secrets found in `text`.
    static func found(_ secrets: [String], in text: String) -> [String] { secrets.filter { text.contains($0) } }

    /// Runs a server on the storage `make` opens (given the server's logger), writes through it
    /// (`write(through:_:directory:)`), stops it, and checks that its log, at its most verbose,
    /// holds none of what was written; returns every private name and text written, to look for
    /// in the storage.
    static func writeAndStop(_ directory: URL, _ make: (Logger) throws -> any RegisterStorage) async throws -> [String] {
        let log = CapturedLog()
        let harness = try await ServerHarness.start(try make(log.logger), logger: log.logger)
        let secrets = Secrets()
        let posts: Int
        do {
            posts = try await write(through: harness, secrets, directory: directory)
        } catch {
            try? await harness.stop()
            throw error
        }
        try await harness.stop()
        let written = secrets.all(posts: posts)
        #expect(found(written, in: log.lines.withLock { $0 }.joined(separator: "\n")) == [], "in the log")
        return written
    }

    @Test("on SQLite: the database file and the log hold no private name or text")
    func sqlite() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("server.sqlite").path
        let secrets = try await Self.writeAndStop(directory) { _ in try SQLiteRegisterStorage(path: path) }
        var stored = ""
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            stored += String(decoding: try Data(contentsOf: URL(fileURLWithPath: file)), as: UTF8.self)
        }
        #expect(stored.contains("\"sealed\""), "the heads are in the file")
        #expect(Self.found(secrets, in: stored) == [])
    }

    @Test(
        "on PostgreSQL: every table, dumped, and the log hold no private name or text",
        .enabled(if: postgresTestURL != nil, "set ENGINE_TEST_POSTGRES_URL to run it"))
    func postgres() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secrets = try await Self.writeAndStop(directory) { try PostgresRegisterStorage(url: postgresTestURL ?? "", logger: $0) }
        let dump = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"), ["pg_dump", "--data-only", postgresTestURL ?? ""], in: directory, timeout: 60)
        #expect(dump.status == 0, "\(dump.stderr)")
        #expect(dump.stdout.contains("\"sealed\""), "the heads are in the tables")
        #expect(Self.found(secrets, in: dump.stdout) == [])
    }
}
#endif
