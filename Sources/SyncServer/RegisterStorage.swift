import Foundation
import JSONText
import SyncModel

/// Where a sync server keeps its users, tokens and registers: SQLite (`SQLiteRegisterStorage`,
/// the default) or PostgreSQL (`PostgresRegisterStorage`). Every method is scoped by the user
/// the request's token belongs to; none takes a user from a request.
public protocol RegisterStorage: Sendable {
    /// The user a token's SHA-256 belongs to, if the token exists and is not revoked.
    func user(forTokenHash hash: [UInt8]) async throws -> StoredUser?
    /// Records a token's hash for `user` (created if new); returns the token's id.
    func addToken(hash: [UInt8], user: String, at date: Date) async throws -> Int64
    /// Revokes the token with this id; false when there is none, or it was revoked already.
    func revokeToken(id: Int64, at date: Date) async throws -> Bool
    /// Every token, without its hash.
    func tokens() async throws -> [StoredToken]
    /// The user's change counter and every write the server keeps for them (the registers'
    /// winners and each device's latest write, each once), as wire-format JSON objects.
    func read(user: StoredUser) async throws -> (cursor: Int64, records: [String])
    /// The user's change counter.
    func cursor(user: StoredUser) async throws -> Int64
    /// Merges writes, each with one conditional upsert that keeps the greater order key, and
    /// moves the change counter on when anything changed. Returns how many rows changed and
    /// the counter after.
    func merge(_ writes: [StoredWrite], user: StoredUser) async throws -> (changed: Int, cursor: Int64)
    /// Throws when the database cannot be reached (`GET /health`).
    func check() async throws
    /// Users whose registers another server instance changed, for long-polls here; nil when
    /// this process is the only writer.
    var remoteChanges: AsyncStream<Int64>? { get }
}

/// A user, as the token names them.
public struct StoredUser: Sendable, Equatable {
    public let id: Int64
    public let name: String

    public init(id: Int64, name: String) {
        self.id = id
        self.name = name
    }
}

/// A token as `engine serve token list` shows it.
public struct StoredToken: Sendable, Equatable {
    public let id: Int64
    public let user: String
    public let createdAt: Date
    public let revokedAt: Date?
}

/// One write as the storage keeps it: its register, its order under the server's merge policy
/// and under the stamp (for the device's own latest), and its wire-format JSON.
public struct StoredWrite: Sendable {
    public let account: String
    public let timeline: String
    public let device: String
    public let orderKey: [UInt8]
    public let stampKey: [UInt8]
    public let json: String

    public init(_ record: PositionRecord, orderKey: OrderKey) {
        account = record.key.account
        timeline = record.key.timeline
        device = record.device
        self.orderKey = orderKey.bytes
        stampKey = record.stamp.orderKey.bytes
        // Every value of a decoded record is representable.
        json = (try? JSONWriter(style: .compact).write(SyncWireCoding.value(of: record))) ?? "{}"
    }
}

/// Why the storage failed, for the log and the 503 answer.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
