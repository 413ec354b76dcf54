#if SyncServer
import TimelineEngineSupport
import Foundation
import Logging
import NIOSSL
import PostgresNIO

/// The server's storage in PostgreSQL, through postgres-nio: for services with many users on
/// several machines. The server keeps no state of its own, so any number of `engine serve`
/// processes behind a load balancer serve the same users.
///
/// - A head is a conditional upsert, `INSERT … ON CONFLICT … DO UPDATE … WHERE
///   excluded.head_key > position_head.head_key`: two instances racing on one device's head
///   cannot lose the later write.
/// - A request's heads are one statement, all or nothing, which also moves the user's change
///   counter on (its row lock orders the user's commits) and stamps each changed head with it.
/// - Once it has committed, the change is announced (`announce`): `pg_notify`, sent for the
///   writes of many requests at a time (the server's `ChangeAnnouncer`), so that every
///   instance's long-polls hear of it.
public final class PostgresRegisterStorage: RegisterStorage {
    /// The channel notifications go on. The payload is, when registers changed, a list of
    /// `USER:COUNTER` (a user's id and their change counter) separated by commas, one per user
    /// of an announced group (an earlier release sent one `USER:COUNTER`, and one before it the
    /// id alone); or `revoked:` and a token's SHA-256 in hexadecimal when it was revoked.
    static let channel = "timeline_sync"
    static let revokedPrefix = "revoked:"

    private let client: PostgresClient
    private let logger: Logger
    /// False for a short command: no warm pool, no listener (`init(url:logger:serving:)`).
    private let serving: Bool
    private let events: AsyncStream<RemoteEvent>
    private let eventsContinuation: AsyncStream<RemoteEvent>.Continuation
    /// The time a head is stored at, for retention (`dropHeads(writtenBefore:)`).
    private let now: @Sendable () -> Date
    /// Whether the schema was made in this process.
    private let prepared = PreparedFlag()

    /// A client for `url` (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require][&pool_size=N]`).
    /// Nothing connects until `run()` runs.
    /// A storage for `url`. `serving` is for a server: its connections are opened when it starts
    /// and kept, and it listens for other instances' changes. A command that runs a few statements
    /// and ends (`serve token …`) passes false: connections are made as needed, nothing listens,
    /// and the pool's own warnings are left out (a failure reaches the command as an error).
    public init(url: String, logger: Logger, serving: Bool = true, now: @escaping @Sendable () -> Date = Date.init) throws(StorageError) {
        self.now = now
        var poolLogger = logger
        if !serving { poolLogger.logLevel = .error }
        client = try Self.client(url: url, logger: poolLogger, warm: serving)
        self.logger = logger
        self.serving = serving
        (events, eventsContinuation) = AsyncStream<RemoteEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
    }

    /// A connection pool for `url`, as the storage makes it (`pool_size` connections, by
    /// default `poolSize`, and one for the listener); it connects when its `run()` runs.
    public static func client(url: String, logger: Logger, warm: Bool = true) throws(StorageError) -> PostgresClient {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? ""),
            let host = components.host, !host.isEmpty, let user = components.user, !user.isEmpty
        else {
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
        var configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user,
            password: components.password, database: database.isEmpty ? user : database, tls: tls)
        var size = Self.poolSize
        if let text = components.queryItems?.first(where: { $0.name == "pool_size" })?.value {
            guard let value = Int(text), (1...1_000).contains(value) else {
                throw StorageError("pool_size must be a number from 1 to 1000, found \(text)")
            }
            size = value
        }
        // The listener holds one connection for good. All are opened when the storage runs and
        // kept open, so the first requests after start, or after a quiet minute, do not wait for
        // connections to be made.
        configuration.options.maximumConnections = size + 1
        configuration.options.minimumConnections = warm ? size + 1 : 0
        return PostgresClient(configuration: configuration, backgroundLogger: logger)
    }

    /// Connections that requests share at most: two per core of this machine, at least 4 (the
    /// listener has one more). More only queue in the database: a request holds a connection for one
    /// statement, and long-polls hold none while they wait.
    public static var poolSize: Int { max(4, 2 * ProcessInfo.processInfo.activeProcessorCount) }

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
    /// `onStart` is called just before the pool starts running: a caller that waits for it before
    /// its first statement does not lease a connection from a pool not yet running (which
    /// PostgresNIO answers with a warning on every short command).
    public func run(onStart: @escaping @Sendable () -> Void = {}) async {
        let (started, signal) = AsyncStream<Void>.makeStream()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                signal.finish()
                onStart()
                await self.client.run()
            }
            // The listener's first lease waits for the pool too.
            if serving {
                group.addTask {
                    for await _ in started {}
                    await Task.yield()
                    await self.listen()
                }
            }
            await group.waitForAll()
        }
        eventsContinuation.finish()
    }

    /// LISTENs on a connection of its own, reconnecting after a failure, until cancelled.
    private func listen() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.channel) { notifications in
                        eventsContinuation.yield(.listening)
                        for try await notification in notifications {
                            for event in Self.events(notification.payload) { eventsContinuation.yield(event) }
                        }
                    }
                }
                eventsContinuation.yield(.interrupted)
            } catch {
                eventsContinuation.yield(.interrupted)
                if Task.isCancelled { return }
                // The pool closing its own connection (it is shutting down, its cancellation
                // reaching it before this task) is no news; anything else is.
                if (error as? PSQLError)?.code == .clientClosedConnection {
                    logger.debug("PostgreSQL notifications: the pool closed the listening connection; listening again in 1 s")
                } else {
                    logger.warning("PostgreSQL notifications: \(String(reflecting: error)); listening again in 1 s")
                }
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    public var remoteEvents: AsyncStream<RemoteEvent>? { events }

    /// The events a notification's payload names: each user of a list that changed, or a
    /// revocation; none for a payload this release does not know, and no user for an entry of a
    /// list it does not know.
    static func events(_ payload: String) -> [RemoteEvent] {
        if let revoked = revocation(payload) { return [revoked] }
        return payload.split(separator: ",", omittingEmptySubsequences: false).compactMap(change)
    }

    /// A list's entry: `USER:COUNTER`, or `USER` alone.
    static func change(_ entry: Substring) -> RemoteEvent? {
        if let user = Int64(entry) { return .changed(user: user, cursor: nil) }
        guard let colon = entry.firstIndex(of: ":"), let user = Int64(entry[..<colon]),
            let cursor = Int64(entry[entry.index(after: colon)...])
        else { return nil }
        return .changed(user: user, cursor: cursor)
    }

    /// Users a notification carries at most: each entry is at most 41 bytes, and a payload
    /// must stay under 8,000.
    static let usersPerNotification = 100

    /// The revocation a payload names, if it is one.
    static func revocation(_ payload: String) -> RemoteEvent? {
        guard payload.hasPrefix(revokedPrefix) else { return nil }
        let hex = Array(payload.utf8.dropFirst(revokedPrefix.utf8.count))
        guard hex.count % 2 == 0, !hex.isEmpty else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.count / 2)
        for index in stride(from: 0, to: hex.count, by: 2) {
            guard let byte = UInt8(String(decoding: hex[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return .revoked(tokenHash: bytes)
    }

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
        CREATE TABLE IF NOT EXISTS position_head (user_id BIGINT NOT NULL, account TEXT NOT NULL, timeline TEXT NOT NULL, device TEXT NOT NULL,
                                                  head_key BYTEA NOT NULL, changed_at BIGINT NOT NULL, record TEXT NOT NULL,
                                                  PRIMARY KEY (user_id, account, timeline, device))
        """,
        // A read finds the user's heads by the primary key's first column. An index by counter
        // (an earlier release's) changed with every write, so no update of a head could be
        // made in place (HOT): it cost every write an entry in both indexes.
        "DROP INDEX IF EXISTS position_head_changes",
        // When each head was stored (retention), when a user was erased, and what an erasure
        // leaves of each device (`ErasedDevice`). Heads kept from before count as written now.
        // A column is added only when missing: ALTER TABLE locks the table even when it changes
        // nothing, and would deadlock with the requests of instances already running.
        """
        DO $$ BEGIN
            IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                           WHERE table_schema = current_schema() AND table_name = 'position_head' AND column_name = 'written_at') THEN
                ALTER TABLE position_head ADD COLUMN written_at DOUBLE PRECISION NOT NULL DEFAULT extract(epoch from now());
            END IF;
            IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                           WHERE table_schema = current_schema() AND table_name = 'sync_user' AND column_name = 'erased_at') THEN
                ALTER TABLE sync_user ADD COLUMN erased_at DOUBLE PRECISION;
            END IF;
            IF NOT EXISTS (SELECT 1 FROM information_schema.columns
                           WHERE table_schema = current_schema() AND table_name = 'sync_user' AND column_name = 'head_count') THEN
                ALTER TABLE sync_user ADD COLUMN head_count BIGINT NOT NULL DEFAULT 0;
                UPDATE sync_user SET head_count = (SELECT count(*) FROM position_head WHERE user_id = sync_user.id);
            END IF;
        END $$
        """,
        """
        CREATE TABLE IF NOT EXISTS erased_device (user_id BIGINT NOT NULL, device BYTEA NOT NULL, head_key BYTEA NOT NULL,
                                                  PRIMARY KEY (user_id, device))
        """,
    ]

    public func user(forTokenHash hash: [UInt8]) async throws -> StoredUser? {
        try await prepare()
        for try await (id, name) in try await client.execute(PostgresStatements.TokenUser(hash: hash), logger: logger) {
            return StoredUser(id: id, name: name)
        }
        return nil
    }

    public func addToken(hash: [UInt8], user: String, at date: Date) async throws -> Int64 {
        try await prepare()
        let seconds = date.timeIntervalSince1970
        return try await client.withTransaction(logger: logger) { connection in
            try await connection.query(
                "INSERT INTO sync_user (name, created_at) VALUES (\(user), \(seconds)) ON CONFLICT (name) DO NOTHING",
                logger: logger)
            let rows = try await connection.query(
                """
                INSERT INTO sync_token (user_id, hash, created_at) SELECT id, \(Data(hash)), \(seconds) FROM sync_user WHERE name = \(user)
                RETURNING id
                """, logger: logger)
            for try await id in rows.decode(Int64.self) { return id }
            throw StorageError("the token was not stored")
        }
    }

    /// One statement: the revocation and its notification (`revoked:` and the hash), so every
    /// instance forgets the token when the revocation commits.
    public func revokeToken(id: Int64, at date: Date) async throws -> Bool {
        try await prepare()
        let rows = try await client.query(
            """
            WITH revoked AS (UPDATE sync_token SET revoked_at = \(date.timeIntervalSince1970) WHERE id = \(id) AND revoked_at IS NULL RETURNING hash)
            SELECT (SELECT count(*) FROM revoked)::bigint,
                   (SELECT count(*) FROM (SELECT pg_notify('timeline_sync', 'revoked:' || encode(hash, 'hex')) FROM revoked) AS sent)::bigint
            """, logger: logger)
        for try await (revoked, _) in rows.decode((Int64, Int64).self) { return revoked > 0 }
        return false
    }

    public func tokens() async throws -> [StoredToken] {
        try await prepare()
        let rows = try await client.query(
            """
            SELECT sync_token.id, sync_user.name, sync_token.created_at, sync_token.revoked_at
            FROM sync_token JOIN sync_user ON sync_user.id = sync_token.user_id ORDER BY sync_token.id
            """, logger: logger)
        var tokens: [StoredToken] = []
        for try await (id, name, created, revoked) in rows.decode((Int64, String, Double, Double?).self) {
            tokens.append(
                StoredToken(
                    id: id, user: name, createdAt: Date(timeIntervalSince1970: created),
                    revokedAt: revoked.map(Date.init(timeIntervalSince1970:))))
        }
        return tokens
    }

    /// One statement, so one snapshot: the counter, then the heads (those changed after `since`).
    public func read(user: StoredUser, since: Int64?) async throws -> (cursor: Int64, records: [String]) {
        try await prepare()
        var cursor: Int64 = 0
        var records: [String] = []
        for try await (kind, text) in try await client.execute(PostgresStatements.Read(user: user.id, after: since ?? -1), logger: logger) {
            if kind == 0 { cursor = Int64(text) ?? 0 } else { records.append(text) }
        }
        return (cursor, records)
    }

    public func cursor(user: StoredUser) async throws -> Int64 {
        try await prepare()
        for try await version in try await client.execute(PostgresStatements.Cursor(user: user.id), logger: logger) { return version }
        return 0
    }

    /// Both merges' first step: whether the request's token ($8; none for the operator's
    /// merges) still exists unrevoked, its row locked for share until the merge commits, so that
    /// an erasure or a revocation either waits for the merge (and then removes what it stored)
    /// or committed before it (and then nothing is stored).
    private static let tokenStep = """
        allowed AS (SELECT ($8::bytea IS NULL OR EXISTS (SELECT 1 FROM sync_token WHERE user_id = $1 AND hash = $8::bytea
                                                          AND revoked_at IS NULL FOR SHARE)) AS ok)
        """

    /// The user's last erasure, in milliseconds since 1970 (-1 when never erased): a write in the
    /// clear that its device made before it (`made_at`, -1 for a sealed one) is not taken in.
    private static let erasedMilliseconds = "COALESCE((SELECT erased_at FROM sync_user WHERE id = $1) * 1000, -1)"

    /// Both merges' counter: moved on when any head is fresh, under the user row's lock, with
    /// the user's count of heads, unless the new heads ($10: no bound when null) would pass the
    /// bound. The count is the row's own, so a concurrent merge of the user's that committed
    /// first is counted when this one's update checks it again on the row it waited for.
    private static let counterStep = """
        adding AS (SELECT count(*) FILTER (WHERE is_new) AS heads, count(*) AS fresh FROM fresh),
        counter AS (UPDATE sync_user SET version = version + 1, head_count = head_count + (SELECT heads FROM adding)
                    WHERE id = $1 AND (SELECT fresh FROM adding) > 0
                        AND ($10::bigint IS NULL OR (SELECT heads FROM adding) = 0 OR head_count + (SELECT heads FROM adding) <= $10::bigint)
                    RETURNING version)
        """

    /// Both merges' end: the upsert keeps only a later head, then the row they answer (heads
    /// changed, the counter after).
    private static let upsertAndAnswer = """
        ON CONFLICT (user_id, account, timeline, device) DO UPDATE SET head_key = EXCLUDED.head_key, changed_at = EXCLUDED.changed_at,
            record = EXCLUDED.record, written_at = EXCLUDED.written_at
        WHERE EXCLUDED.head_key > position_head.head_key
        RETURNING 1
        )
        SELECT (SELECT count(*) FROM heads)::bigint,
               COALESCE((SELECT version FROM counter), (SELECT version FROM sync_user WHERE id = $1), 0)::bigint,
               (SELECT ok FROM allowed),
               ((SELECT fresh FROM adding) > 0 AND NOT EXISTS (SELECT 1 FROM counter)),
               COALESCE((SELECT head_count FROM sync_user WHERE id = $1), 0)::bigint,
               (SELECT heads FROM adding)::bigint
        """

    /// One statement for a whole request. Of the request's heads, the latest per device that
    /// is later than the stored head; when there is any, the user's counter moves on (its row
    /// lock waits for a concurrent request of the user, so commits and counters agree); and each
    /// of them is a conditional upsert stamped with the new counter. Autocommitted, so it is all
    /// or nothing. It notifies no one: a notification in the statement would hold PostgreSQL's
    /// notification lock through the commit, and commit every instance's writes one at a time.
    static let mergeStatement = """
        WITH \(tokenStep), input AS (
            SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $9::bigint[])
                AS w(account, timeline, device, head_key, record, made_at)
        ), head_input AS (
            SELECT DISTINCT ON (account, timeline, device) account, timeline, device, decode(head_key, 'hex') AS head_key, record, made_at
            FROM input ORDER BY account, timeline, device, decode(head_key, 'hex') DESC
        ), fresh AS (
            SELECT i.*, h.head_key IS NULL AS is_new FROM head_input i LEFT JOIN position_head h
                ON h.user_id = $1 AND h.account = i.account AND h.timeline = i.timeline AND h.device = i.device
            WHERE (h.head_key IS NULL OR i.head_key > h.head_key)
                AND NOT EXISTS (SELECT 1 FROM erased_device e WHERE e.user_id = $1
                                AND e.device = sha256(convert_to($1::text || ':' || i.device, 'UTF8')) AND e.head_key >= i.head_key)
                AND (SELECT ok FROM allowed)
                AND NOT (i.made_at >= 0 AND i.made_at < \(erasedMilliseconds))
        ), \(counterStep), heads AS (
            INSERT INTO position_head (user_id, account, timeline, device, head_key, changed_at, record, written_at)
            SELECT $1, account, timeline, device, head_key, counter.version, record, $7 FROM fresh, counter
            \(upsertAndAnswer)
        """

    /// The merge of a request with one head, the usual case: the same steps without the arrays,
    /// the de-duplication and the join, which make PostgreSQL's share of a write about a quarter
    /// cheaper.
    static let mergeOneStatement = """
        WITH \(tokenStep), fresh AS (
            SELECT NOT EXISTS (SELECT 1 FROM position_head WHERE user_id = $1 AND account = $2 AND timeline = $3 AND device = $4) AS is_new
            WHERE (SELECT ok FROM allowed)
                AND NOT ($9::bigint >= 0 AND $9::bigint < \(erasedMilliseconds))
                AND NOT EXISTS (SELECT 1 FROM position_head
                                WHERE user_id = $1 AND account = $2 AND timeline = $3 AND device = $4 AND head_key >= $5)
                AND NOT EXISTS (SELECT 1 FROM erased_device
                                WHERE user_id = $1 AND device = sha256(convert_to($1::text || ':' || $4, 'UTF8')) AND head_key >= $5)
        ), \(counterStep), heads AS (
            INSERT INTO position_head (user_id, account, timeline, device, head_key, changed_at, record, written_at)
            SELECT $1, $2, $3, $4, $5, version, $6, $7 FROM counter
            \(upsertAndAnswer)
        """

    public func merge(_ heads: [StoredHead], user: StoredUser, token: [UInt8]?, maxHeads: Int?) async throws -> (changed: Int, cursor: Int64) {
        try await prepare()
        let written = now().timeIntervalSince1970
        let bound = maxHeads.map(Int64.init)
        if heads.count == 1 {
            return try await merge(
                PostgresStatements.MergeOne(user: user.id, head: heads[0], writtenAt: written, token: token, maxHeads: bound), maxHeads: maxHeads)
        }
        return try await merge(
            PostgresStatements.Merge(user: user.id, heads: heads, writtenAt: written, token: token, maxHeads: bound), maxHeads: maxHeads)
    }

    public func user(named name: String) async throws -> StoredUser? {
        try await prepare()
        let rows = try await client.query("SELECT id, name FROM sync_user WHERE name = \(name)", logger: logger)
        for try await (id, name) in rows.decode((Int64, String).self) { return StoredUser(id: id, name: name) }
        return nil
    }

    /// One transaction at REPEATABLE READ: one snapshot of the user, their tokens and heads.
    public func export(user: StoredUser) async throws -> UserExport {
        try await prepare()
        return try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            var created = 0.0
            var erased: Double?
            for try await (createdAt, erasedAt) in try await connection.query(
                "SELECT created_at, erased_at FROM sync_user WHERE id = \(user.id)", logger: logger
            ).decode((Double, Double?).self) {
                (created, erased) = (createdAt, erasedAt)
            }
            var tokens: [StoredToken] = []
            for try await (id, createdAt, revokedAt) in try await connection.query(
                "SELECT id, created_at, revoked_at FROM sync_token WHERE user_id = \(user.id) ORDER BY id", logger: logger
            ).decode((Int64, Double, Double?).self) {
                tokens.append(
                    StoredToken(
                        id: id, user: user.name, createdAt: Date(timeIntervalSince1970: createdAt),
                        revokedAt: revokedAt.map(Date.init(timeIntervalSince1970:))))
            }
            var registers: [UserExport.Register] = []
            for try await (account, timeline, record) in try await connection.query(
                "SELECT account, timeline, record FROM position_head WHERE user_id = \(user.id) ORDER BY account, timeline, device",
                logger: logger
            ).decode((String, String, String).self) {
                if let last = registers.last, last.account == account, last.timeline == timeline {
                    registers[registers.count - 1].heads.append(record)
                } else {
                    registers.append(UserExport.Register(account: account, timeline: timeline, heads: [record]))
                }
            }
            return UserExport(
                user: user.name, createdAt: Date(timeIntervalSince1970: created), tokens: tokens, registers: registers,
                erasedAt: erased.map(Date.init(timeIntervalSince1970:)))
        }
    }

    /// One transaction: the tombstone of each device, the heads and tokens removed, the counter
    /// moved on, and each token's revocation notified, so every instance forgets it.
    public func erase(user: StoredUser, at date: Date) async throws -> UserErasure {
        try await prepare()
        return try await client.withTransaction(logger: logger) { connection in
            // The tokens first: a merge of theirs locks its token for share before the user's
            // row, so it either waits for the erasure and finds its token gone, or the erasure
            // waits for it and removes what it stored; taking them in the same order, neither
            // waits for the other for ever.
            var hashes: [[UInt8]] = []
            for try await hash in try await connection.query(
                """
                WITH gone AS (DELETE FROM sync_token WHERE user_id = \(user.id) RETURNING hash)
                SELECT hash FROM gone, LATERAL (SELECT pg_notify('timeline_sync', 'revoked:' || encode(hash, 'hex'))) AS sent
                """, logger: logger
            ).decode(Data.self) {
                hashes.append([UInt8](hash))
            }
            // Then the user's row: a concurrent merge of theirs waits for the erasure.
            var cursor: Int64 = 0
            for try await version in try await connection.query(
                """
                UPDATE sync_user SET version = version + 1, erased_at = \(date.timeIntervalSince1970), head_count = 0 WHERE id = \(user.id)
                RETURNING version
                """,
                logger: logger
            ).decode(Int64.self) {
                cursor = version
            }
            var devices = 0
            for try await count in try await connection.query(
                """
                WITH latest AS (SELECT DISTINCT ON (device) device, head_key FROM position_head WHERE user_id = \(user.id)
                                ORDER BY device, head_key DESC),
                kept AS (
                    INSERT INTO erased_device (user_id, device, head_key)
                    SELECT \(user.id), sha256(convert_to(\(String(user.id)) || ':' || device, 'UTF8')), head_key FROM latest
                    ON CONFLICT (user_id, device) DO UPDATE SET head_key = EXCLUDED.head_key WHERE EXCLUDED.head_key > erased_device.head_key
                    RETURNING 1)
                SELECT count(*)::bigint FROM latest
                """, logger: logger
            ).decode(Int64.self) {
                devices = Int(count)
            }
            var registers = 0
            var heads = 0
            for try await (registerCount, headCount) in try await connection.query(
                """
                WITH gone AS (DELETE FROM position_head WHERE user_id = \(user.id) RETURNING account, timeline)
                SELECT (SELECT count(*) FROM (SELECT DISTINCT account, timeline FROM gone) AS registers)::bigint, (SELECT count(*) FROM gone)::bigint
                """, logger: logger
            ).decode((Int64, Int64).self) {
                (registers, heads) = (Int(registerCount), Int(headCount))
            }
            return UserErasure(
                registers: registers, heads: heads, tokens: hashes.count, devices: devices, tokenHashes: hashes, cursor: cursor)
        }
    }

    public func dropHeads(writtenBefore cutoff: Date) async throws -> Int {
        try await prepare()
        let rows = try await client.query(
            """
            WITH gone AS (
                DELETE FROM position_head WHERE (user_id, device) IN
                    (SELECT user_id, device FROM position_head GROUP BY user_id, device HAVING max(written_at) < \(cutoff.timeIntervalSince1970))
                RETURNING user_id),
            counted AS (
                UPDATE sync_user u SET head_count = greatest(0, u.head_count - g.heads)
                FROM (SELECT user_id, count(*) AS heads FROM gone GROUP BY user_id) g WHERE u.id = g.user_id
                RETURNING 1)
            SELECT count(*)::bigint FROM gone
            """, logger: logger)
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    /// Runs either merge statement; both answer one row: heads changed, and the counter.
    private func merge<Statement: PostgresPreparedStatement>(_ statement: Statement, maxHeads: Int?) async throws -> (changed: Int, cursor: Int64)
    where Statement.Row == PostgresStatements.MergeRow {
        for try await (changed, cursor, allowed, full, held, adding) in try await client.execute(statement, logger: logger) {
            guard allowed else { throw TokenGone() }
            if full, let maxHeads { throw QuotaFull(held: Int(held), adding: Int(adding), limit: maxHeads) }
            return (Int(changed), cursor)
        }
        throw StorageError("the merge returned no row")
    }

    /// `pg_notify('timeline_sync', 'USER:COUNTER,USER:COUNTER,…')`, one notification for up to
    /// `usersPerNotification` users, all in one statement, so PostgreSQL takes its notification
    /// lock once for them, and every instance's listener hears one notification for many writes.
    public func announce(_ changes: [ChangeAnnouncement]) async throws {
        guard !changes.isEmpty else { return }
        for try await _ in try await client.execute(PostgresStatements.Announce(payloads: Self.payloads(changes)), logger: logger) {}
    }

    /// The notifications' payloads for `changes`.
    static func payloads(_ changes: [ChangeAnnouncement]) -> [String] {
        stride(from: 0, to: changes.count, by: usersPerNotification).map { start in
            changes[start..<min(changes.count, start + usersPerNotification)].map { "\($0.user):\($0.cursor)" }.joined(separator: ",")
        }
    }

    public func check() async throws {
        for try await _ in try await client.query("SELECT 1", logger: logger).decode(Int.self) {}
    }
}

/// Set once, read from any task.
final class PreparedFlag: Sendable {
    private let value = Locked(false)

    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
#endif
