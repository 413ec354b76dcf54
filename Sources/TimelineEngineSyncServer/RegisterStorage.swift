#if SyncServer
import Foundation
import TimelineEngineJSONText
import TimelineEngineSyncModel
import TimelineEngineSyncWire

/// Where a sync server keeps its users, tokens and registers: SQLite (`SQLiteRegisterStorage`,
/// the default) or PostgreSQL (`PostgresRegisterStorage`). Every method is scoped by the user
/// the request's token belongs to; none takes a user from a request.
public protocol RegisterStorage: Sendable {
    /// The user a token's SHA-256 belongs to, if the token exists and is not revoked.
    func user(forTokenHash hash: [UInt8]) async throws -> StoredUser?
    /// Records a token's hash for `user` (created if new); returns the token's id.
    func addToken(hash: [UInt8], user: String, at date: Date) async throws -> Int64
    /// Revokes the token with this id; false when there is none, or it was revoked already. A
    /// storage shared by several processes tells them (`RemoteEvent.revoked`).
    func revokeToken(id: Int64, at date: Date) async throws -> Bool
    /// Every token, without its hash.
    func tokens() async throws -> [StoredToken]
    /// The user's change counter and the heads the server keeps for them (each device's latest
    /// write per register) as wire-format JSON objects: all of them, or with `since`, those
    /// changed after the counter passed it. One snapshot of the database.
    func read(user: StoredUser, since: Int64?) async throws -> (cursor: Int64, records: [String])
    /// The user's change counter.
    func cursor(user: StoredUser) async throws -> Int64
    /// Merges heads, each with one conditional upsert that replaces a device's head only with a
    /// later one (`StoredHead.headKey`), and moves the change counter on when anything changed;
    /// the heads changed carry the new counter. Returns how many heads changed and the counter
    /// after.
    ///
    /// With `token` (the SHA-256 of the request's token), the merge commits only while that
    /// token exists and is not revoked, checked in the merge's own transaction: a request whose
    /// token was checked before an erasure or a revocation committed stores nothing after it
    /// (`TokenGone`). With `maxHeads`, a merge that would leave the user more heads than that
    /// stores nothing (`QuotaFull`); heads it replaces count once.
    func merge(_ heads: [StoredHead], user: StoredUser, token: [UInt8]?, maxHeads: Int?) async throws -> (changed: Int, cursor: Int64)
    /// Tells the other processes on this storage that these users' registers changed, after the
    /// merges committed, in one statement (`ChangeAnnouncer` groups them). Does nothing when this
    /// process is the only writer (`remoteEvents` is nil).
    func announce(_ changes: [ChangeAnnouncement]) async throws
    /// The user named `name`, if the server knows them (a token was ever made for them).
    func user(named name: String) async throws -> StoredUser?
    /// Everything kept of `user`, in one snapshot (`UserExport`).
    func export(user: StoredUser) async throws -> UserExport
    /// Removes every head and token of `user` in one transaction, and leaves a tombstone: per
    /// device, a digest of its name and its latest write's place (`ErasedDevice`), so that a
    /// device still holding old heads cannot bring them back (a later write of it is taken in).
    /// The user's change counter moves on, waking their long-polls.
    func erase(user: StoredUser, at date: Date) async throws -> UserErasure
    /// Drops every head of each device whose latest write to any of its user's registers was
    /// stored before `cutoff` (retention: a register never keeps devices no longer in use);
    /// returns how many heads were dropped.
    func dropHeads(writtenBefore cutoff: Date) async throws -> Int
    /// Throws when the database cannot be reached (`GET /health`).
    func check() async throws
    /// What other server instances did that this one must hear of: users whose registers
    /// changed (for long-polls here) and tokens revoked (for the token cache); nil when this
    /// process is the only writer.
    var remoteEvents: AsyncStream<RemoteEvent>? { get }
}

extension RegisterStorage {
    /// Merges heads whatever token brought them (the operator's commands and tests).
    public func merge(_ heads: [StoredHead], user: StoredUser) async throws -> (changed: Int, cursor: Int64) {
        try await merge(heads, user: user, token: nil, maxHeads: nil)
    }

    /// Merges heads of a request with `token`, with no bound on the user's heads.
    public func merge(_ heads: [StoredHead], user: StoredUser, token: [UInt8]?) async throws -> (changed: Int, cursor: Int64) {
        try await merge(heads, user: user, token: token, maxHeads: nil)
    }
}

/// A merge refused because it would leave its user more heads than the server keeps for one:
/// nothing of it was stored.
public struct QuotaFull: Error, Sendable, Equatable, CustomStringConvertible {
    /// The heads the user has.
    public let held: Int
    /// The new heads the merge would have added.
    public let adding: Int
    /// The most heads kept for one user.
    public let limit: Int

    public init(held: Int, adding: Int, limit: Int) {
        self.held = held
        self.adding = adding
        self.limit = limit
    }

    public var description: String {
        "this user has \(held) heads (a device's latest write to a register) and the server keeps at most \(limit); "
            + "this write would add \(adding): nothing of it was stored"
    }
}

/// A merge refused because its request's token was revoked, or its user erased, after the
/// request was let in: nothing of it was stored.
public struct TokenGone: Error, Sendable, Equatable, CustomStringConvertible {
    public init() {}
    public var description: String { "unknown or revoked token" }
}

/// Something another server instance, or `engine serve token revoke`, did to the shared database.
public enum RemoteEvent: Sendable, Equatable {
    /// The user's registers changed, and their change counter is now `cursor` (nil when an
    /// instance of an earlier release made the change and did not say).
    case changed(user: Int64, cursor: Int64?)
    /// The token with this SHA-256 was revoked.
    case revoked(tokenHash: [UInt8])
    /// Other instances are heard from now on (at start, and after a reconnection); what they
    /// did before may not have been.
    case listening
    /// Other instances cannot be heard until the next `listening`.
    case interrupted
}

/// A user's registers changed, and their change counter is now `cursor`: what other server
/// instances are told (`RegisterStorage.announce`).
public struct ChangeAnnouncement: Sendable, Equatable {
    public let user: Int64
    public let cursor: Int64

    public init(user: Int64, cursor: Int64) {
        self.user = user
        self.cursor = cursor
    }
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

/// One head as the storage keeps it: its register and device, its place among that device's
/// writes (`headKey`: the sequence number, then the hybrid timestamp, as 16 big-endian bytes,
/// then the clocks revision as 8 more when it is not 0, which sort as the writes do), and its
/// wire-format JSON. No merge policy is involved: the
/// server keeps heads, and devices resolve the value when they read.
public struct StoredHead: Sendable {
    public let account: String
    public let timeline: String
    public let device: String
    public let headKey: [UInt8]
    public let json: String
    /// When its device made the write, by its hybrid clock, in milliseconds since 1970: known for
    /// a write in the clear, nil for a sealed one (its clock is sealed). An erasure refuses a
    /// write made before it by this time.
    public let madeAt: UInt64?

    /// The head of `record`, whose wire-format text is `json` when given (the record as it was
    /// received), or written from the record; one with a number that has no JSON form is an error.
    public init(_ record: PositionRecord, json: String? = nil) throws(JSONWriter.UnrepresentableValue) {
        account = record.key.account
        timeline = record.key.timeline
        device = record.device
        headKey = Self.key(record.order)
        madeAt = record.stamp.time.milliseconds
        if let json {
            self.json = json
        } else {
            self.json = try JSONWriter(style: .compact).write(SyncWireCoding.value(of: record))
        }
    }

    /// The head of a sealed record (`SealedRecord`), kept as it came (`json`) or as written again:
    /// the server orders it by its clear sequence and clocks revision, and never opens it.
    public init(_ record: SealedRecord, json: String? = nil) {
        account = record.key.account
        timeline = record.key.timeline
        device = record.device
        headKey = Self.key(record.order)
        madeAt = nil
        self.json = json ?? (try? JSONWriter(style: .compact).write(record.value)) ?? ""
    }

    /// Of `heads`, the latest of each register and device, in their first order: what a request
    /// changes at most.
    public static func latest(_ heads: [StoredHead]) -> [StoredHead] {
        var index: [String: Int] = [:]
        var kept: [StoredHead] = []
        for head in heads {
            let name = "\(head.account)\u{0}\(head.timeline)\u{0}\(head.device)"
            if let at = index[name] {
                if kept[at].headKey.lexicographicallyPrecedes(head.headKey) { kept[at] = head }
            } else {
                index[name] = kept.count
                kept.append(head)
            }
        }
        return kept
    }

    /// A write's `PositionRecord.Order` as bytes that sort as it does: the sequence number,
    /// then the hybrid timestamp, then the clocks revision unless 0, big-endian. A key written
    /// before revisions existed is the same write's at revision 0, and a byte string sorts
    /// before any longer one it begins.
    public static func key(_ order: PositionRecord.Order) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        let values =
            order.clocksRevision == 0 ? [order.sequence, order.time.rawValue] : [order.sequence, order.time.rawValue, order.clocksRevision]
        for value in values {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
        }
        return bytes
    }
}

/// Why the storage failed, for the log and the 503 answer.
public struct StorageError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
#endif
