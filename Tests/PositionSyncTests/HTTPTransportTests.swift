import EngineConfiguration
import Foundation
import FurthestRead
import HTTP
import NIOHTTP
import PositionSync
import SyncModel
import Testing
import TestSupport
import TimelineCore
import TimelineStore

/// The HTTP transport against an in-process fake of the sync server that enforces the API's
/// rules: a bearer token per user, the wire format's version, a merge by the register's total
/// order, JSON error bodies.
@Suite("HTTP transport", .serialized)
struct HTTPTransportTests {
    static let scope = StoreScope(account: "me", timeline: "home")
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// The fake server's state: each user's registers.
    final class FakeServer: @unchecked Sendable {
        let lock = NSLock()
        var states: [String: ReplicaState] = [:]
        let tokens = ["token-a": "alice", "token-b": "bob"]
        let policy = FurthestReadPolicy()

        func handle(_ request: LoopbackHTTPServer.Request, _ body: Data) -> LoopbackHTTPServer.Answer {
            func error(_ status: Int, _ message: String) -> LoopbackHTTPServer.Answer {
                .json(Data(#"{"error": "\#(message)"}"#.utf8), status: status)
            }
            guard let header = request.headers["authorization"], header.hasPrefix("Bearer "),
                  let user = tokens[String(header.dropFirst(7))] else { return error(401, "unknown token") }
            switch request.method {
            case "GET":
                let records = lock.withLock { states[user]?.records ?? [] }
                return .json(SyncWireCoding.encode(.init(device: "server", records: records)))
            case "POST":
                let document: SyncWireCoding.Document
                do {
                    document = try SyncWireCoding.decode(body)
                } catch {
                    return .json(Data(#"{"error": "bad document"}"#.utf8), status: 400)
                }
                lock.withLock {
                    var state = states[user] ?? ReplicaState()
                    state.apply(contentsOf: document.records, policy: policy)
                    states[user] = state
                }
                return .json(Data(#"{"accepted": \#(document.records.count)}"#.utf8))
            default:
                return error(405, "method not allowed")
            }
        }
    }

    static func round(_ store: TimelineStore, _ device: String, _ server: LoopbackHTTPServer, token: String) -> SyncRound {
        let transport = HTTPTransport(base: URL(string: server.baseURL)!, environment: { ["ENGINE_SYNC_TOKEN": token] }, exchange: NIOHTTPExchange())
        return SyncRound(store: store, components: .with(policy: FurthestReadPolicy(), transport: transport), device: device, gracePeriod: 30 * 86_400)
    }

    @Test("two devices converge through the server; another user's token sees none of it")
    func converge() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let fake = FakeServer()
        server.handle("/v1/registers") { fake.handle($0, $1) }
        let phone = try TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        let laptop = try TimelineStore(path: directory.appendingPathComponent("laptop.sqlite").path)
        let created = Self.start.addingTimeInterval(-600)
        try phone.savePosition(PositionSnapshot(postId: "p1", postCreatedAt: created), scope: Self.scope, device: "phone", at: Self.start,
                               policy: FurthestReadPolicy())
        try laptop.savePosition(PositionSnapshot(postId: "p2", postCreatedAt: created.addingTimeInterval(60)), scope: Self.scope,
                                device: "laptop", at: Self.start, policy: FurthestReadPolicy())
        _ = try Self.round(phone, "phone", server, token: "token-a").run(at: Self.start)
        let report = try Self.round(laptop, "laptop", server, token: "token-a").run(at: Self.start)
        #expect(report.devices == ["phone"])
        _ = try Self.round(phone, "phone", server, token: "token-a").run(at: Self.start)
        let key = RegisterKey(account: "me", timeline: "home")
        #expect(try phone.replicaState().registers[key]?.snapshot?.postId == "p2")
        #expect(try laptop.replicaState().registers[key]?.snapshot?.postId == "p2")
        #expect(fake.lock.withLock { fake.states["bob"] } == nil)
        #expect(server.received.allSatisfy { $0.headers["authorization"] == "Bearer token-a" })
    }

    @Test("a wrong token is an error with the server's message; a server that is down is offline; the outbox stays")
    func failures() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LoopbackHTTPServer()
        let fake = FakeServer()
        server.handle("/v1/registers") { fake.handle($0, $1) }
        let phone = try TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        try phone.savePosition(PositionSnapshot(postId: "p1"), scope: Self.scope, device: "phone", at: Self.start, policy: FurthestReadPolicy())
        do {
            _ = try Self.round(phone, "phone", server, token: "nope").run(at: Self.start)
            Issue.record("a wrong token synced")
        } catch let failure as SyncRound.Failure {
            #expect(failure.error == SyncTransportError(.failed, "\(server.baseURL)/v1/registers: HTTP 401: unknown token"))
            #expect(failure.pending == 1)
        }
        server.stop()
        do {
            _ = try Self.round(phone, "phone", server, token: "token-a").run(at: Self.start)
            Issue.record("a stopped server synced")
        } catch let failure as SyncRound.Failure {
            #expect(failure.error.kind == .unreachable)
            #expect(failure.pending == 1)
        }
        // No token at all: a clear error, no request.
        let transport = HTTPTransport(base: URL(string: "http://127.0.0.1:9")!, environment: { [:] })
        #expect(throws: SyncTransportError(.failed, "no sync token: set the environment variable ENGINE_SYNC_TOKEN")) {
            try transport.pull(device: "phone")
        }
    }

    @Test("a refused token is an error status without a retry, even under ExponentialBackoff; an unreachable server is offline")
    func coordinatorStatus() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LoopbackHTTPServer()
        let fake = FakeServer()
        server.handle("/v1/registers") { fake.handle($0, $1) }
        let store = try TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        var configuration = TimelineConfiguration.defaults
        configuration.network.policy = ComponentSpec(name: "ExponentialBackoff")
        func coordinator(token: String) throws -> SyncCoordinator {
            let transport = HTTPTransport(base: URL(string: server.baseURL)!, pollInterval: nil, environment: { ["ENGINE_SYNC_TOKEN": token] },
                                          exchange: NIOHTTPExchange())
            return try SyncCoordinator(store: store, components: .with(policy: FurthestReadPolicy(), transport: transport),
                                       configuration: configuration, device: "phone", clock: { Self.start })
        }
        let refused = try coordinator(token: "nope")
        defer { refused.stop() }
        #expect(throws: SyncRound.Failure.self) { try refused.syncNow() }
        #expect(refused.status == .error(message: "\(server.baseURL)/v1/registers: HTTP 401: unknown token", retryAt: nil))
        #expect(server.received.count == 1)
        server.stop()
        let offline = try coordinator(token: "token-a")
        defer { offline.stop() }
        #expect(throws: SyncRound.Failure.self) { try offline.syncNow() }
        guard case .offline = offline.status else {
            Issue.record("expected offline, got \(offline.status)")
            return
        }
    }
}
