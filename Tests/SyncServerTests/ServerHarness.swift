#if SyncServer
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import SyncModel
import SyncServer
import SyncWire
import TestSupport
import Testing
import TimelineCore

/// A sync server on a free loopback port, in this process, and a client for it.
final class ServerHarness: Sendable {
    let server: SyncServer
    let port: Int
    let group: ServiceGroup
    let task: Task<Void, any Error>
    /// The storage's own work (PostgreSQL's connection pool and listener), when it has any.
    let storageTask: Task<Void, Never>?

    static let logger: Logger = {
        var logger = Logger(label: "sync-server-tests")
        logger.logLevel = .error
        return logger
    }()

    private init(server: SyncServer, port: Int, group: ServiceGroup, task: Task<Void, any Error>, storageTask: Task<Void, Never>?) {
        self.server = server
        self.port = port
        self.group = group
        self.task = task
        self.storageTask = storageTask
    }

    /// Starts a server on `storage` and waits until it listens.
    static func start(
        _ storage: any RegisterStorage, maxBodyBytes: Int = 64 << 10, maxRecords: Int = 100,
        maxWait: Double = 5, tokens: TokenCache = TokenCache(), logger: Logger = logger
    ) async throws -> ServerHarness {
        let storageTask = (storage as? PostgresRegisterStorage).map { postgres in Task { await postgres.run() } }
        let server = SyncServer(
            storage: storage,
            settings: ServerSettings(
                port: 0, maxBodyBytes: maxBodyBytes, maxRecords: maxRecords,
                maxWait: maxWait), tokens: tokens, logger: logger)
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let group = server.serviceGroup(signals: []) { port in continuation.yield(port) }
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw HarnessError("the server did not start") }
        return ServerHarness(server: server, port: port, group: group, task: task, storageTask: storageTask)
    }

    /// Shuts down gracefully and waits until it has.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
        storageTask?.cancel()
        await storageTask?.value
    }

    /// One request; its status and body.
    func request(
        _ method: HTTPMethod, _ path: String, token: String? = nil, body: String? = nil,
        headers extra: [(String, String)] = []
    ) async throws -> (status: Int, body: String, allow: String?) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        for (name, value) in extra { request.headers.add(name: name, value: value) }
        if let body {
            request.body = .bytes(ByteBuffer(string: body))
            request.headers.add(name: "Content-Type", value: "application/json")
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return (Int(response.status.code), String(buffer: bytes), response.headers.first(name: "Allow"))
    }

    /// A token for `user`, stored as the command line stores it.
    func token(for user: String) async throws -> String {
        let token = ServerTokens.make()
        _ = try await server.storage.addToken(hash: ServerTokens.hash(token), user: user, at: Date())
        return token
    }

    /// A sync document with these writes, as a device sends it.
    static func document(_ records: [PositionRecord], device: String = "phone") -> String {
        String(decoding: try! SyncWireCoding.encode(SyncWireCoding.Document(device: device, records: records)), as: UTF8.self)
    }

    /// A write to `ACCOUNT / home` of `post` (nil: a tombstone), the `sequence`-th of `device`,
    /// at `millis`.
    static func write(_ post: String?, seq sequence: UInt64, millis: UInt64, device: String = "phone", account: String = "me") -> PositionRecord {
        let stamp = RegisterStamp(time: HybridTimestamp(milliseconds: millis, counter: 0), device: device)
        return PositionRecord(
            key: RegisterKey(account: account, timeline: "home"), stamp: stamp, sequence: sequence,
            savedAt: Date(timeIntervalSince1970: 1_790_000_000), snapshot: post.map { PositionSnapshot(postId: $0) }, epoch: .zero,
            progress: post.map { .init(createdAt: 1_790_000_000, postId: $0) })
    }

    /// The heads a GET answered, as the server sent them (no merging): "account/timeline/device"
    /// to "post#sequence" ("(forgotten)#sequence" for a tombstone).
    static func heads(_ body: String) throws -> [String: String] {
        let document = try SyncWireCoding.decode(Data(body.utf8))
        var result: [String: String] = [:]
        for record in document.records {
            let name = "\(record.key.account)/\(record.key.timeline)/\(record.device)"
            #expect(result[name] == nil, "the server answered two heads for \(name)")
            result[name] = "\(record.snapshot?.postId ?? "(forgotten)")#\(record.sequence)"
        }
        return result
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
#endif
