#if SyncServer
import TimelineEngineSupport
import Foundation
import GRDB
import Hummingbird
import PostgresNIO

/// What a database error means to a client, for the errors a server meets in operation: a
/// full disk and a store that cannot be written are named as such, not "internal error".
enum StorageFailure {
    /// The status and message for `error`, or nil when it is no known storage condition.
    static func describe(_ error: any Error) -> (status: HTTPResponse.Status, message: String)? {
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_FULL:
                return (HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), "the server's disk is full; nothing was stored")
            case .SQLITE_READONLY: return (.serviceUnavailable, "the server's store cannot be written (read-only); nothing was stored")
            case .SQLITE_IOERR: return (.serviceUnavailable, "the server's store cannot be written (disk I/O error); nothing was stored")
            default: return nil
            }
        }
        if let error = error as? PSQLError, let state = error.serverInfo?[.sqlState] {
            switch state {
            case "53100":
                return (HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), "the server's disk is full; nothing was stored")
            case "25006": return (.serviceUnavailable, "the server's database is read-only; nothing was stored")
            default: return nil
            }
        }
        return nil
    }
}

/// Whether the last write to the store failed, and why: `/health` reports a store every write
/// fails on, though it still answers reads.
public final class WriteHealth: Sendable {
    private let failure = Locked<String?>(nil)

    public init() {}

    /// The reason the last write failed, nil after a write that succeeded.
    public var lastFailure: String? { failure.withLock { $0 } }

    func succeeded() { failure.withLock { $0 = nil } }

    func failed(_ reason: String) { failure.withLock { $0 = reason } }
}
#endif
