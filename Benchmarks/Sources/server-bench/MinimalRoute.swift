// The framework's own cost: a Hummingbird route that does a write's database work and nothing
// else. It reads the body, then makes one conditional upsert of a head, the statement the sync
// server runs, keyed by the request's number, with the body as the record. There is no token,
// no decoding, no change counter and no notification.
import Foundation
import GRDB
import Hummingbird
import Logging
import NIOCore
import PostgresNIO
import ServiceLifecycle

/// Where the minimal route writes.
enum MinimalStore: Sendable {
    case sqlite(DatabasePool)
    case postgres(PostgresClient)

    /// The upsert, prepared once per connection.
    struct Upsert: PostgresPreparedStatement {
        static let name = "minimal_upsert"
        static let sql = """
            INSERT INTO minimal_head (user_id, account, timeline, device, head_key, changed_at, record) VALUES ($1, 'me', 't', 'd', $2, 1, $3)
            ON CONFLICT (user_id, account, timeline, device) DO UPDATE SET head_key = EXCLUDED.head_key, changed_at = EXCLUDED.changed_at,
                record = EXCLUDED.record
            WHERE EXCLUDED.head_key > minimal_head.head_key
            """
        typealias Row = Int64
        let user: Int64
        let key: Data
        let record: String

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(user)
            try bindings.append(key)
            bindings.append(record)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    static let sqliteUpsert = """
        INSERT INTO minimal_head (user_id, account, timeline, device, head_key, changed_at, record) VALUES (?, 'me', 't', 'd', ?, 1, ?)
        ON CONFLICT (user_id, account, timeline, device) DO UPDATE SET head_key = excluded.head_key, changed_at = excluded.changed_at,
            record = excluded.record
        WHERE excluded.head_key > minimal_head.head_key
        """

    static let table = """
        CREATE TABLE IF NOT EXISTS minimal_head (user_id BIGINT NOT NULL, account TEXT NOT NULL, timeline TEXT NOT NULL, device TEXT NOT NULL,
                                                 head_key BYTEA NOT NULL, changed_at BIGINT NOT NULL, record TEXT NOT NULL,
                                                 PRIMARY KEY (user_id, account, timeline, device))
        """

    func prepare(logger: Logger) async throws {
        switch self {
        case .sqlite(let pool):
            try await pool.write { db in try db.execute(sql: Self.table.replacingOccurrences(of: "BYTEA", with: "BLOB")) }
        case .postgres(let client):
            try await client.query(PostgresQuery(unsafeSQL: Self.table), logger: logger)
        }
    }

    func upsert(user: Int64, key: Data, record: String, logger: Logger) async throws {
        switch self {
        case .sqlite(let pool):
            try await pool.write { db in
                try db.cachedStatement(sql: Self.sqliteUpsert).execute(arguments: [user, key, record])
            }
        case .postgres(let client):
            for try await _ in try await client.execute(Upsert(user: user, key: key, record: record), logger: logger) {}
        }
    }
}

/// Starts the minimal route on a free loopback port; returns the port and the running
/// service, which `shutdown` stops.
func startMinimalRoute(_ store: MinimalStore, logger: Logger) async throws -> (port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
    try await store.prepare(logger: logger)
    let router = Router(context: BasicRequestContext.self)
    router.post("/v1/registers") { request, _ -> Response in
        var request = request
        let body = try await request.collectBody(upTo: 1 << 20)
        // One row per token, as the sync server keeps one change counter per user.
        let user = Int64(request.headers[.authorization]?.hashValue ?? 0)
        let number = UInt64(body.readableBytes) &+ UInt64(DispatchTime.now().uptimeNanoseconds)
        var key = Data(count: 16)
        for index in 0..<8 { key[8 + index] = UInt8(truncatingIfNeeded: number >> UInt64(56 - 8 * index)) }
        try await store.upsert(user: user, key: key, record: String(buffer: body), logger: logger)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"changed":1}"#)))
    }
    let (ports, continuation) = AsyncStream<Int>.makeStream()
    let application = Application(
        router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
    let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
    let task = Task { try await group.run() }
    var port = 0
    for await bound in ports {
        port = bound
        break
    }
    return (port, group, task)
}
