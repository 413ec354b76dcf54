import Foundation
import Logging
import NIOSSL
import PostgresNIO

/// The server's storage in PostgreSQL, through postgres-nio: for services with many users on
/// several machines. The server keeps no state of its own, so any number of `engine serve`
/// processes behind a load balancer serve the same users.
///
/// - A write is a conditional upsert, `INSERT … ON CONFLICT … DO UPDATE … WHERE
///   excluded.order_key > position_register.order_key`: two instances racing on one register
///   cannot lose the winner.
/// - A request's writes are one statement, all or nothing, which also moves the user's change
///   counter on (its row lock orders the user's commits) and calls `pg_notify`, so that every
///   instance's long-polls hear of it when it commits.
public final class PostgresRegisterStorage: RegisterStorage {
    /// The channel notifications go on; the payload is the user's id.
    static let channel = "timeline_sync"

    private let client: PostgresClient
    private let logger: Logger
    private let changes: AsyncStream<Int64>
    private let changesContinuation: AsyncStream<Int64>.Continuation
    /// Whether the schema was made in this process.
    private let prepared = PreparedFlag()

    /// A client for `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]`).
    /// Nothing connects until `run()` runs.
    public init(url: String, logger: Logger) throws(StorageError) {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
              let host = components.host, !host.isEmpty, let user = components.user, !user.isEmpty else {
            throw StorageError("--database must be postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, found \(Self.redacted(url))")
        }
        let database = String(components.path.drop { $0 == "/" })
        let tls: PostgresClient.Configuration.TLS
        switch components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "disable" {
        case "disable": tls = .disable
        case "prefer": tls = .prefer(try Self.tlsConfiguration())
        case "require", "verify-full": tls = .require(try Self.tlsConfiguration())
        case let other: throw StorageError("sslmode must be disable, prefer or require, found \(other)")
        }
        var configuration = PostgresClient.Configuration(host: host, port: components.port ?? 5432, username: user,
                                                         password: components.password, database: database.isEmpty ? user : database, tls: tls)
        configuration.options.maximumConnections = 20
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
        (changes, changesContinuation) = AsyncStream<Int64>.makeStream(bufferingPolicy: .bufferingNewest(1024))
    }

    private static func tlsConfiguration() throws(StorageError) -> TLSConfiguration {
        TLSConfiguration.makeClientConfiguration()
    }

    /// The URL with its password hidden, for messages.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "…"
        return components.string ?? "(the URL)"
    }

    /// Runs the connection pool and the listener for other instances' changes, until cancelled.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.client.run() }
            group.addTask { await self.listen() }
            await group.waitForAll()
        }
        changesContinuation.finish()
    }

    /// LISTENs on a connection of its own, reconnecting after a failure, until cancelled.
    private func listen() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.channel) { notifications in
                        for try await notification in notifications {
                            if let user = Int64(notification.payload) { changesContinuation.yield(user) }
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("PostgreSQL notifications: \(String(reflecting: error)); listening again in 1 s")
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    public var remoteChanges: AsyncStream<Int64>? { changes }

    /// Creates the tables once per process; concurrent instances wait on an advisory lock.
    private func prepare() async throws {
        guard !prepared.isSet else { return }
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(7274726)", logger: logger)
            for statement in Self.schema { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
        }
        prepared.set()
    }

    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS sync_user (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE, version BIGINT NOT NULL DEFAULT 0,
                                              created_at DOUBLE PRECISION NOT NULL)
        """,
        """
        CREATE TABLE IF NOT EXISTS sync_token (id BIGSERIAL PRIMARY KEY, user_id BIGINT NOT NULL REFERENCES sync_user(id),
                                               hash BYTEA NOT NULL UNIQUE, created_at DOUBLE PRECISION NOT NULL, revoked_at DOUBLE PRECISION)
        """,
        """
        CREATE TABLE IF NOT EXISTS position_register (user_id BIGINT NOT NULL, account TEXT NOT NULL, timeline TEXT NOT NULL,
                                                      order_key BYTEA NOT NULL, stamp_key BYTEA NOT NULL, record TEXT NOT NULL,
                                                      PRIMARY KEY (user_id, account, timeline))
        """,
        """
        CREATE TABLE IF NOT EXISTS device_position (user_id BIGINT NOT NULL, account TEXT NOT NULL, timeline TEXT NOT NULL, device TEXT NOT NULL,
                                                    stamp_key BYTEA NOT NULL, record TEXT NOT NULL,
                                                    PRIMARY KEY (user_id, account, timeline, device))
        """,
    ]

    public func user(forTokenHash hash: [UInt8]) async throws -> StoredUser? {
        try await prepare()
        let rows = try await client.query("""
            SELECT sync_user.id, sync_user.name FROM sync_token JOIN sync_user ON sync_user.id = sync_token.user_id
            WHERE sync_token.hash = \(Data(hash)) AND sync_token.revoked_at IS NULL
            """, logger: logger)
        for try await (id, name) in rows.decode((Int64, String).self) { return StoredUser(id: id, name: name) }
        return nil
    }

    public func addToken(hash: [UInt8], user: String, at date: Date) async throws -> Int64 {
        try await prepare()
        let seconds = date.timeIntervalSince1970
        return try await client.withTransaction(logger: logger) { connection in
            try await connection.query("INSERT INTO sync_user (name, created_at) VALUES (\(user), \(seconds)) ON CONFLICT (name) DO NOTHING",
                                       logger: logger)
            let rows = try await connection.query("""
                INSERT INTO sync_token (user_id, hash, created_at) SELECT id, \(Data(hash)), \(seconds) FROM sync_user WHERE name = \(user)
                RETURNING id
                """, logger: logger)
            for try await id in rows.decode(Int64.self) { return id }
            throw StorageError("the token was not stored")
        }
    }

    public func revokeToken(id: Int64, at date: Date) async throws -> Bool {
        try await prepare()
        let rows = try await client.query("""
            UPDATE sync_token SET revoked_at = \(date.timeIntervalSince1970) WHERE id = \(id) AND revoked_at IS NULL RETURNING id
            """, logger: logger)
        for try await _ in rows.decode(Int64.self) { return true }
        return false
    }

    public func tokens() async throws -> [StoredToken] {
        try await prepare()
        let rows = try await client.query("""
            SELECT sync_token.id, sync_user.name, sync_token.created_at, sync_token.revoked_at
            FROM sync_token JOIN sync_user ON sync_user.id = sync_token.user_id ORDER BY sync_token.id
            """, logger: logger)
        var tokens: [StoredToken] = []
        for try await (id, name, created, revoked) in rows.decode((Int64, String, Double, Double?).self) {
            tokens.append(StoredToken(id: id, user: name, createdAt: Date(timeIntervalSince1970: created),
                                      revokedAt: revoked.map(Date.init(timeIntervalSince1970:))))
        }
        return tokens
    }

    /// One statement, so one snapshot: the counter, then every write.
    public func read(user: StoredUser) async throws -> (cursor: Int64, records: [String]) {
        try await prepare()
        let rows = try await client.query("""
            SELECT 0, ''::bytea, version::text FROM sync_user WHERE id = \(user.id)
            UNION ALL SELECT 1, stamp_key, record FROM position_register WHERE user_id = \(user.id)
            UNION ALL SELECT 1, stamp_key, record FROM device_position WHERE user_id = \(user.id)
            """, logger: logger)
        var cursor: Int64 = 0
        var seen = Set<Data>()
        var records: [String] = []
        for try await (kind, key, text) in rows.decode((Int32, Data, String).self) {
            if kind == 0 {
                cursor = Int64(text) ?? 0
            } else if seen.insert(key).inserted {
                records.append(text)
            }
        }
        return (cursor, records)
    }

    public func cursor(user: StoredUser) async throws -> Int64 {
        try await prepare()
        for try await version in try await client.query("SELECT version FROM sync_user WHERE id = \(user.id)", logger: logger).decode(Int64.self) {
            return version
        }
        return 0
    }

    /// One statement for a whole request: each write a conditional upsert (the greatest write
    /// per register and per device first, as one statement cannot update a row twice), then the
    /// user's change counter and the notification when anything changed. Autocommitted, so it
    /// is all or nothing; the counter's row lock orders this user's commits.
    static let mergeStatement = """
        WITH input AS (
            SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
                AS w(account, timeline, device, order_key, stamp_key, record)
        ), register_input AS (
            SELECT DISTINCT ON (account, timeline) account, timeline, decode(order_key, 'hex') AS order_key,
                   decode(stamp_key, 'hex') AS stamp_key, record
            FROM input ORDER BY account, timeline, decode(order_key, 'hex') DESC
        ), device_input AS (
            SELECT DISTINCT ON (account, timeline, device) account, timeline, device, decode(stamp_key, 'hex') AS stamp_key, record
            FROM input ORDER BY account, timeline, device, decode(stamp_key, 'hex') DESC
        ), registers AS (
            INSERT INTO position_register (user_id, account, timeline, order_key, stamp_key, record)
            SELECT $1, account, timeline, order_key, stamp_key, record FROM register_input
            ON CONFLICT (user_id, account, timeline) DO UPDATE SET order_key = EXCLUDED.order_key, stamp_key = EXCLUDED.stamp_key,
                record = EXCLUDED.record
            WHERE EXCLUDED.order_key > position_register.order_key
            RETURNING 1
        ), devices AS (
            INSERT INTO device_position (user_id, account, timeline, device, stamp_key, record)
            SELECT $1, account, timeline, device, stamp_key, record FROM device_input
            ON CONFLICT (user_id, account, timeline, device) DO UPDATE SET stamp_key = EXCLUDED.stamp_key, record = EXCLUDED.record
            WHERE EXCLUDED.stamp_key > device_position.stamp_key
            RETURNING 1
        ), changed AS (
            SELECT (SELECT count(*) FROM registers) + (SELECT count(*) FROM devices) AS rows
        ), counter AS (
            UPDATE sync_user SET version = version + 1 WHERE id = $1 AND (SELECT rows FROM changed) > 0 RETURNING version
        )
        SELECT (SELECT rows FROM changed)::bigint,
               COALESCE((SELECT version FROM counter), (SELECT version FROM sync_user WHERE id = $1), 0)::bigint,
               (SELECT count(*) FROM (SELECT pg_notify('timeline_sync', $1::text) WHERE (SELECT rows FROM changed) > 0) AS sent)::bigint
        """

    public func merge(_ writes: [StoredWrite], user: StoredUser) async throws -> (changed: Int, cursor: Int64) {
        try await prepare()
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(user.id)
        bindings.append(writes.map(\.account))
        bindings.append(writes.map(\.timeline))
        bindings.append(writes.map(\.device))
        bindings.append(writes.map { hex($0.orderKey) })
        bindings.append(writes.map { hex($0.stampKey) })
        bindings.append(writes.map(\.json))
        let rows = try await client.query(PostgresQuery(unsafeSQL: Self.mergeStatement, binds: bindings), logger: logger)
        for try await (changed, cursor, _) in rows.decode((Int64, Int64, Int64).self) { return (Int(changed), cursor) }
        throw StorageError("the merge returned no row")
    }

    public func check() async throws {
        for try await _ in try await client.query("SELECT 1", logger: logger).decode(Int.self) {}
    }
}

/// Set once, read from any task.
final class PreparedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
