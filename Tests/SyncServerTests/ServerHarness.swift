#if SyncServer
import AsyncHTTPClient
import TimelineEngineSupport
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import TimelineEngineSyncModel
import TimelineEngineSyncServer
import TimelineEngineSyncWire
import TimelineEngineTestSupport
import Testing
import TimelineEngineCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
        _ storage: any RegisterStorage, maxBodyBytes: Int = 64 << 10, maxRecords: Int = 100, maxHeadsPerUser: Int = 1_000,
        maxWait: Double = 5, tokens: TokenCache = TokenCache(), logger: Logger = logger
    ) async throws -> ServerHarness {
        let storageTask = (storage as? PostgresRegisterStorage).map { postgres in Task { await postgres.run() } }
        let server = SyncServer(
            storage: storage,
            settings: ServerSettings(
                port: 0, maxBodyBytes: maxBodyBytes, maxRecords: maxRecords, maxHeadsPerUser: maxHeadsPerUser,
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

extension ServerHarness {
    /// Sends `bytes` on a new connection to the server, then, when `hangUp`, closes it at once;
    /// otherwise reads until the server closes it or 10 s pass. What the server sent back.
    /// For what a client library cannot send: a body announced and never sent, a hang-up.
    func raw(_ bytes: String, hangUp: Bool) async throws -> String {
        let port = port
        let answer = Locked<Result<String, HarnessError>>(.failure(HarnessError("no answer")))
        await ParallelWork.run(count: 1) { _ in
            answer.withLock { $0 = RawConnection.exchange(port: port, bytes: Array(bytes.utf8), hangUp: hangUp) }
        }
        return try answer.withLock { $0 }.get()
    }
}

/// A blocking TCP exchange with 127.0.0.1, on a thread of its own (`ServerHarness.raw`).
enum RawConnection {
    static func exchange(port: Int, bytes: [UInt8], hangUp: Bool) -> Result<String, HarnessError> {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return .failure(HarnessError("socket: errno \(errno)")) }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return .failure(HarnessError("connect: errno \(errno)")) }
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return .failure(HarnessError("send: errno \(errno)")) }
            sent += count
        }
        if hangUp { return .success("") }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[..<count]
        }
        return .success(String(decoding: received, as: UTF8.self))
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
#endif
