#if SyncServer
import Crypto
import Foundation
import Logging
import TimelineEngineFormats
import TimelineEngineValueTree

/// Everything the server keeps of one user, as `GET /v1/user` and `engine serve user export`
/// answer it: the user, their tokens (without hashes), every register with each device's head
/// as stored (the wire format's records), and the erasures done before.
public struct UserExport: Sendable {
    /// One register: its account, timeline and heads, each a record as the wire carries it.
    public struct Register: Sendable {
        public var account: String
        public var timeline: String
        public var heads: [String]

        public init(account: String, timeline: String, heads: [String]) {
            self.account = account
            self.timeline = timeline
            self.heads = heads
        }
    }

    public var user: String
    public var createdAt: Date
    public var tokens: [StoredToken]
    public var registers: [Register]
    /// When the user's data was last erased, if ever.
    public var erasedAt: Date?

    public init(user: String, createdAt: Date, tokens: [StoredToken], registers: [Register], erasedAt: Date?) {
        self.user = user
        self.createdAt = createdAt
        self.tokens = tokens
        self.registers = registers
        self.erasedAt = erasedAt
    }

    /// The format's name and version in the document.
    public static let format = "timeline-sync-export"
    public static let version = 1

    /// How many heads the export holds.
    public var headCount: Int { registers.reduce(0) { $0 + $1.heads.count } }

    /// What the log says of an export made `by` a token or the command line: counts, never names.
    public func logMetadata(by: String) -> Logger.Metadata {
        ["registers": "\(registers.count)", "heads": "\(headCount)", "by": "\(by)"]
    }

    /// The export as a JSON document (`docs/SERVER.md`, "Data rights"): the heads are written as
    /// they are stored, without being read again.
    public func json(exportedAt: Date) -> String {
        var text = #"{"format":"\#(Self.format)","version":\#(Self.version),"user":"#
        Self.appendString(user, to: &text)
        text += #","createdAt":"\#(Timestamp.format(createdAt))","exportedAt":"\#(Timestamp.format(exportedAt))","#
        text += #""erasedAt":"# + (erasedAt.map { #""\#(Timestamp.format($0))""# } ?? "null")
        text += #","tokens":["#
        for (number, token) in tokens.enumerated() {
            if number > 0 { text += "," }
            text += #"{"id":\#(token.id),"createdAt":"\#(Timestamp.format(token.createdAt))","revokedAt":"#
            text += token.revokedAt.map { #""\#(Timestamp.format($0))""# } ?? "null"
            text += "}"
        }
        text += #"],"registers":["#
        for (number, register) in registers.enumerated() {
            if number > 0 { text += "," }
            text += #"{"account":"#
            Self.appendString(register.account, to: &text)
            text += #","timeline":"#
            Self.appendString(register.timeline, to: &text)
            text += #","heads":["#
            text += register.heads.joined(separator: ",")
            text += "]}"
        }
        text += "]}"
        return text
    }

    private static func appendString(_ value: String, to text: inout String) {
        text += "\""
        for scalar in value.unicodeScalars { Value.appendEscaped(scalar, to: &text) }
        text += "\""
    }
}

/// What an erasure removed (`engine serve user erase`, `DELETE /v1/user`).
public struct UserErasure: Sendable, Equatable {
    public var registers: Int
    public var heads: Int
    public var tokens: Int
    /// The devices whose place in the tombstone refuses their writes so far, sealed ones
    /// included (writes in the clear made before the erasure are refused whichever device).
    public var devices: Int
    /// The SHA-256 of each token removed, for the servers' token caches to forget.
    public var tokenHashes: [[UInt8]]
    /// The user's change counter after the erasure.
    public var cursor: Int64

    public init(registers: Int, heads: Int, tokens: Int, devices: Int, tokenHashes: [[UInt8]] = [], cursor: Int64 = 0) {
        self.registers = registers
        self.heads = heads
        self.tokens = tokens
        self.devices = devices
        self.tokenHashes = tokenHashes
        self.cursor = cursor
    }

    /// What the log says of an erasure made `by` a token or the command line: counts, never names.
    public func logMetadata(by: String) -> Logger.Metadata {
        ["registers": "\(registers)", "heads": "\(heads)", "tokens": "\(tokens)", "devices": "\(devices)", "by": "\(by)"]
    }

    /// The answer of `DELETE /v1/user` and the command's JSON.
    public var json: String {
        #"{"erased":{"registers":\#(registers),"heads":\#(heads),"tokens":\#(tokens),"devices":\#(devices)}}"#
    }
}

/// What an erasure leaves of a device: a digest of its name, salted with the user's id, and its
/// latest write's place (`StoredHead.headKey`); a head of that device no later than it is one
/// erased, and is not taken in again. The names themselves are gone; a short one could still be
/// guessed from its digest.
public enum ErasedDevice {
    /// SHA-256 of `"USER:DEVICE"` (the user's id in decimal, UTF-8); PostgreSQL computes the same
    /// (`sha256(convert_to(user || ':' || device, 'UTF8'))`).
    public static func digest(user: Int64, device: String) -> [UInt8] {
        Array(SHA256.hash(data: Data("\(user):\(device)".utf8)))
    }
}
#endif
