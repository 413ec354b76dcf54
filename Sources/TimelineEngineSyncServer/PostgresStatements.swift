#if SyncServer
import Foundation
import PostgresNIO

/// The statements a request runs on PostgreSQL, as named prepared statements: each connection
/// of the pool prepares one at its first use, and from then on a request sends only its name and
/// values, so the server neither parses nor plans it again.
enum PostgresStatements {
    /// The user a token's SHA-256 belongs to, if it is not revoked.
    struct TokenUser: PostgresPreparedStatement {
        static let name = "timeline_token_user"
        static let sql = """
            SELECT sync_user.id, sync_user.name FROM sync_token JOIN sync_user ON sync_user.id = sync_token.user_id
            WHERE sync_token.hash = $1 AND sync_token.revoked_at IS NULL
            """
        typealias Row = (Int64, String)
        let hash: [UInt8]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            try bindings.append(Data(hash))
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// The user's change counter (kind 0, as text), then the heads changed after a counter
    /// (kind 1): one statement, so one snapshot.
    struct Read: PostgresPreparedStatement {
        static let name = "timeline_read"
        static let sql = """
            SELECT 0, version::text FROM sync_user WHERE id = $1
            UNION ALL SELECT 1, record FROM position_head WHERE user_id = $1 AND changed_at > $2
            """
        typealias Row = (Int32, String)
        let user: Int64
        let after: Int64

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(user)
            bindings.append(after)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// The user's change counter.
    struct Cursor: PostgresPreparedStatement {
        static let name = "timeline_cursor"
        static let sql = "SELECT version FROM sync_user WHERE id = $1"
        typealias Row = Int64
        let user: Int64

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(user)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// What both merges answer: heads changed, the counter after, whether the request's token
    /// was still valid, whether the user's bound on heads refused the merge, the user's heads,
    /// and the new heads the merge would add.
    typealias MergeRow = (Int64, Int64, Bool, Bool, Int64, Int64)

    /// A request's merge of one head (`PostgresRegisterStorage.mergeOneStatement`), with the
    /// same row as `Merge`.
    struct MergeOne: PostgresPreparedStatement {
        static let name = "timeline_merge_one"
        static var sql: String { PostgresRegisterStorage.mergeOneStatement }
        typealias Row = MergeRow
        let user: Int64
        let head: StoredHead
        let writtenAt: Double
        let token: [UInt8]?
        let maxHeads: Int64?

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 10)
            bindings.append(user)
            bindings.append(head.account)
            bindings.append(head.timeline)
            bindings.append(head.device)
            try bindings.append(Data(head.headKey))
            bindings.append(head.json)
            bindings.append(writtenAt)
            try bindings.append(token.map { Data($0) })
            bindings.append(head.madeAt.map { Int64(clamping: $0) } ?? -1)
            bindings.append(maxHeads)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }

    /// A request's merge (`PostgresRegisterStorage.mergeStatement`): how many heads changed, the
    /// counter after, and whether the request's token was still valid (nothing is stored when not).
    struct Merge: PostgresPreparedStatement {
        static let name = "timeline_merge"
        static var sql: String { PostgresRegisterStorage.mergeStatement }
        typealias Row = MergeRow
        let user: Int64
        let heads: [StoredHead]
        let writtenAt: Double
        let token: [UInt8]?
        let maxHeads: Int64?

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 10)
            bindings.append(user)
            bindings.append(heads.map(\.account))
            bindings.append(heads.map(\.timeline))
            bindings.append(heads.map(\.device))
            bindings.append(heads.map { Self.hex($0.headKey) })
            bindings.append(heads.map(\.json))
            bindings.append(writtenAt)
            try bindings.append(token.map { Data($0) })
            bindings.append(heads.map { $0.madeAt.map { Int64(clamping: $0) } ?? -1 })
            bindings.append(maxHeads)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }

        static func hex(_ bytes: [UInt8]) -> String {
            let digits = Array("0123456789abcdef".utf8)
            var text: [UInt8] = []
            text.reserveCapacity(bytes.count * 2)
            for byte in bytes {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0f)])
            }
            return String(decoding: text, as: UTF8.self)
        }
    }

    /// Notifications of committed changes (`ChangeAnnouncer`): one `pg_notify` per payload, all
    /// in this statement's transaction, so PostgreSQL takes its notification lock once for them.
    struct Announce: PostgresPreparedStatement {
        static let name = "timeline_announce"
        static let sql = "SELECT count(*) FROM (SELECT pg_notify('timeline_sync', payload) FROM unnest($1::text[]) AS payload) AS sent"
        typealias Row = Int64
        let payloads: [String]

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 1)
            bindings.append(payloads)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }
}
#endif
