import Clocks
import Foundation
import Testing
import TimelineEngineCausalFurthest
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineHTTP
import TimelineEngineNIOHTTP
import TimelineEnginePositionSync
import TimelineEngineStore
import TimelineEngineSyncModel
import TimelineEngineSyncWire
import TimelineEngineTestSupport

/// The HTTP transport against an in-process fake of the sync server that enforces the API's
/// rules: a bearer token per user, the wire format's version, each device's latest write kept
/// by sequence (written here, independently of the library's merge), JSON error bodies.
@Suite("HTTP transport", .serialized, .timeLimit(.minutes(10)))
struct HTTPTransportTests {
    static let scope = StoreScope(account: "me", timeline: "home")
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// The fake server's state: each user's heads, by register and device.
    // @unchecked: `states` is read and written under `lock` only.
    final class FakeServer: @unchecked Sendable {
        let lock = NSLock()
        var states: [String: [String: PositionRecord]] = [:]
        /// Heads sealed end to end, kept as a server keeps them: by their clear names and order.
        var sealed: [String: [String: SealedRecord]] = [:]
        let tokens = ["token-a": "alice", "token-b": "bob"]

        func handle(_ request: LoopbackHTTPServer.Request, _ body: Data) -> LoopbackHTTPServer.Answer {
            func error(_ status: Int, _ message: String) -> LoopbackHTTPServer.Answer {
                .json(Data(#"{"error": "\#(message)"}"#.utf8), status: status)
            }
            guard let header = request.headers["authorization"], header.hasPrefix("Bearer "),
                let user = tokens[String(header.dropFirst(7))]
            else { return error(401, "unknown token") }
            switch request.method {
            case "GET":
                let (records, sealedRecords) = lock.withLock {
                    (states[user].map { Array($0.values) } ?? [], sealed[user].map { Array($0.values) } ?? [])
                }
                return .json(try! SyncWireCoding.encode(.init(device: "server", records: records, sealed: sealedRecords, cursor: 1)))
            case "POST":
                let document: SyncWireCoding.Document
                do {
                    document = try SyncWireCoding.decode(body)
                } catch {
                    return .json(Data(#"{"error": "bad document"}"#.utf8), status: 400)
                }
                lock.withLock {
                    for record in document.records {
                        let name = "\(record.key)/\(record.device)"
                        if let kept = states[user]?[name], kept.sequence >= record.sequence { continue }
                        states[user, default: [:]][name] = record
                    }
                    for record in document.sealed {
                        let name = "\(record.key)/\(record.device)"
                        if let kept = sealed[user]?[name], kept.order >= record.order { continue }
                        sealed[user, default: [:]][name] = record
                    }
                }
                return .json(Data(#"{"accepted": \#(document.records.count)}"#.utf8))
            default:
                return error(405, "method not allowed")
            }
        }
    }

    static func round(_ store: TimelineStore, _ device: String, _ server: LoopbackHTTPServer, token: String) -> SyncRound {
        let transport = HTTPTransport(base: URL(string: server.baseURL)!, environment: { ["ENGINE_SYNC_TOKEN": token] }, exchange: NIOHTTPExchange())
        return SyncRound(
            store: store, components: .with(policy: CausalFurthestPolicy(), transport: transport), device: device, gracePeriod: 30 * 86_400)
    }

    /// How a round that must fail failed; an issue, and nil, when `what` synced instead.
    static func failure(of round: SyncRound, _ what: String) async throws -> SyncRound.Failure? {
        do {
            _ = try await round.run(at: start)
            Issue.record("\(what) synced")
            return nil
        } catch let failure as SyncRound.Failure {
            return failure
        }
    }

    @Test("two devices converge through the server; another user's token sees none of it")
    func converge() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let fake = FakeServer()
        server.handle("/v1/registers") { fake.handle($0, $1) }
        let phone = try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        let laptop = try await TimelineStore(path: directory.appendingPathComponent("laptop.sqlite").path)
        let created = Self.start.addingTimeInterval(-600)
        try await phone.sync.savePosition(PositionSnapshot(postId: "p1", postCreatedAt: created), scope: Self.scope, device: "phone", at: Self.start)
        _ = try await Self.round(phone, "phone", server, token: "token-a").run(at: Self.start)
        let report = try await Self.round(laptop, "laptop", server, token: "token-a").run(at: Self.start)
        #expect(report.devices == ["phone"])
        // The laptop, having heard of the phone's, moves on.
        try await laptop.sync.savePosition(
            PositionSnapshot(postId: "p2", postCreatedAt: created.addingTimeInterval(60)), scope: Self.scope,
            device: "laptop", at: Self.start.addingTimeInterval(5))
        _ = try await Self.round(laptop, "laptop", server, token: "token-a").run(at: Self.start.addingTimeInterval(6))
        _ = try await Self.round(phone, "phone", server, token: "token-a").run(at: Self.start.addingTimeInterval(7))
        let key = RegisterKey(account: "me", timeline: "home")
        #expect(try await CausalFurthestPolicy().value(of: phone.sync.register(of: key))?.snapshot?.postId == "p2")
        #expect(try await CausalFurthestPolicy().value(of: laptop.sync.register(of: key))?.snapshot?.postId == "p2")
        // Each device published its own head only.
        #expect(fake.lock.withLock { fake.states["alice"].map { Set($0.keys) } } == ["me/home/phone", "me/home/laptop"])
        #expect(fake.lock.withLock { fake.states["bob"] } == nil)
        #expect(server.received.allSatisfy { $0.headers["authorization"] == "Bearer token-a" })
    }

    @Test("a wrong token is an error with the server's message; a server that is down is offline; the outbox stays")
    func failures() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LoopbackHTTPServer()
        let fake = FakeServer()
        server.handle("/v1/registers") { fake.handle($0, $1) }
        let phone = try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        try await phone.sync.savePosition(PositionSnapshot(postId: "p1"), scope: Self.scope, device: "phone", at: Self.start)
        let refused = try await Self.failure(of: Self.round(phone, "phone", server, token: "nope"), "a wrong token")
        #expect(refused?.error == SyncTransportError(.failed, "\(server.baseURL)/v1/registers: HTTP 401: unknown token"))
        #expect(refused?.pending == 1)
        server.stop()
        let unreachable = try await Self.failure(of: Self.round(phone, "phone", server, token: "token-a"), "a stopped server")
        #expect(unreachable?.error.kind == .unreachable)
        #expect(unreachable?.pending == 1)
        // No token at all: a clear error, no request.
        let transport = HTTPTransport(base: URL(string: "http://127.0.0.1:9")!, environment: { [:] })
        await #expect(throws: SyncTransportError(.failed, "no sync token: set the environment variable ENGINE_SYNC_TOKEN")) {
            try await transport.pull(device: "phone")
        }
    }

    @Test("a redirect to another origin is not followed: the positions go to no other host, the round fails and the outbox stays")
    func crossOriginRedirect() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LoopbackHTTPServer()
        let elsewhere = try LoopbackHTTPServer()
        defer {
            server.stop()
            elsewhere.stop()
        }
        let fake = FakeServer()
        elsewhere.handle("/v1/registers") { fake.handle($0, $1) }
        let target = "\(elsewhere.baseURL)/v1/registers"
        server.handle("/v1/registers") { _, _ in LoopbackHTTPServer.Answer(status: 307, headers: [("Location", target)], body: Data()) }
        let phone = try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        try await phone.sync.savePosition(PositionSnapshot(postId: "p1"), scope: Self.scope, device: "phone", at: Self.start)
        let redirected = try await Self.failure(of: Self.round(phone, "phone", server, token: "token-a"), "a redirected round")
        #expect(
            redirected?.error == SyncTransportError(.failed, "\(server.baseURL)/v1/registers: redirected to another origin (\(target)); not followed")
        )
        #expect(redirected?.pending == 1)
        #expect(elsewhere.received.isEmpty)
    }

    @Test("a refused token is an error status without a retry, even under ExponentialBackoff; an unreachable server is offline")
    func coordinatorStatus() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LoopbackHTTPServer()
        let fake = FakeServer()
        server.handle("/v1/registers") { fake.handle($0, $1) }
        let store = try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        var configuration = TimelineConfiguration.defaults
        configuration.network.policy = ComponentSpec(name: "ExponentialBackoff")
        func coordinator(token: String) throws -> SyncCoordinator {
            let transport = HTTPTransport(
                base: URL(string: server.baseURL)!, pollInterval: nil, environment: { ["ENGINE_SYNC_TOKEN": token] },
                exchange: NIOHTTPExchange())
            return try SyncCoordinator(
                store: store, components: .with(policy: CausalFurthestPolicy(), transport: transport),
                configuration: configuration, device: "phone", clock: TestClock(), now: { Self.start })
        }
        let refused = try coordinator(token: "nope")
        await #expect(throws: SyncRound.Failure.self) { try await refused.syncNow() }
        #expect(refused.status == .error(message: "\(server.baseURL)/v1/registers: HTTP 401: unknown token", retryAt: nil))
        refused.shutdown()
        server.stop()
        let offline = try coordinator(token: "token-a")
        await #expect(throws: SyncRound.Failure.self) { try await offline.syncNow() }
        offline.shutdown()
        guard case .offline = offline.status else {
            Issue.record("expected offline, got \(offline.status)")
            return
        }
    }
}
