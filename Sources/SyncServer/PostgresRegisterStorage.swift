import Foundation
import Logging
import NIOSSL
import PostgresNIO

/// The server's storage in PostgreSQL, through postgres-nio: for services with many users on
/// several machines. The server keeps no state of its own, so any number of `engine serve`
/// processes behind a load balancer serve the same users.
///
/// - A write is one `INSERT … ON CONFLICT … DO UPDATE … WHERE excluded.order_key >
///   position_register.order_key`: two instances racing on one register cannot lose the winner.
/// - A request's writes run in one transaction that first locks the user's row, so the user's
///   change counter moves on in commit order, and `pg_notify` tells every instance's long-polls
///   when it commits.
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

    public func read(user: StoredUser) async throws -> (cursor: Int64, records: [String]) {
        try await prepare()
        return try await client.withTransaction(logger: logger) { connection in
            var cursor: Int64 = 0
            for try await version in try await connection.query("SELECT version FROM sync_user WHERE id = \(user.id)", logger: logger)
                .decode(Int64.self) { cursor = version }
            var seen = Set<Data>()
            var records: [String] = []
            let rows = try await connection.query("""
                SELECT stamp_key, record FROM position_register WHERE user_id = \(user.id)
                UNION ALL SELECT stamp_key, record FROM device_position WHERE user_id = \(user.id)
                """, logger: logger)
            for try await (key, record) in rows.decode((Data, String).self) where seen.insert(key).inserted { records.append(record) }
            return (cursor, records)
        }
    }

    public func cursor(user: StoredUser) async throws -> Int64 {
        try await prepare()
        for try await version in try await client.query("SELECT version FROM sync_user WHERE id = \(user.id)", logger: logger).decode(Int64.self) {
            return version
        }
        return 0
    }

    public func merge(_ writes: [StoredWrite], user: StoredUser) async throws -> (changed: Int, cursor: Int64) {
        try await prepare()
        return try await client.withTransaction(logger: logger) { connection in
            // The user's row, locked: this user's writes commit one after another.
            var cursor: Int64 = 0
            for try await version in try await connection.query("SELECT version FROM sync_user WHERE id = \(user.id) FOR UPDATE", logger: logger)
                .decode(Int64.self) { cursor = version }
            var changed = 0
            for write in writes {
                let register = try await connection.query("""
                    INSERT INTO position_register (user_id, account, timeline, order_key, stamp_key, record)
                    VALUES (\(user.id), \(write.account), \(write.timeline), \(Data(write.orderKey)), \(Data(write.stampKey)), \(write.json))
                    ON CONFLICT (user_id, account, timeline) DO UPDATE SET order_key = EXCLUDED.order_key, stamp_key = EXCLUDED.stamp_key,
                        record = EXCLUDED.record
                    WHERE EXCLUDED.order_key > position_register.order_key
                    RETURNING 1
                    """, logger: logger)
                for try await _ in register.decode(Int.self) { changed += 1 }
                let device = try await connection.query("""
                    INSERT INTO device_position (user_id, account, timeline, device, stamp_key, record)
                    VALUES (\(user.id), \(write.account), \(write.timeline), \(write.device), \(Data(write.stampKey)), \(write.json))
                    ON CONFLICT (user_id, account, timeline, device) DO UPDATE SET stamp_key = EXCLUDED.stamp_key, record = EXCLUDED.record
                    WHERE EXCLUDED.stamp_key > device_position.stamp_key
                    RETURNING 1
                    """, logger: logger)
                for try await _ in device.decode(Int.self) { changed += 1 }
            }
            if changed > 0 {
                for try await version in try await connection.query("UPDATE sync_user SET version = version + 1 WHERE id = \(user.id) RETURNING version",
                                                                    logger: logger).decode(Int64.self) { cursor = version }
                try await connection.query("SELECT pg_notify(\(Self.channel), \(String(user.id)))", logger: logger)
            }
            return (changed, cursor)
        }
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
