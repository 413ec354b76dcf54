import Foundation
import GRDB
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineJSONText
import TimelineEngineLogging
import TimelineEngineSyncModel

/// The store's record of where the reader was: per account and timeline, the saved position
/// snapshots (one per post, newest first), the ids of the posts read, and the last restoration.
public struct PositionHistoryStore: Sendable {
    let database: StoreDatabase
    /// Where its records go (`TimelineStore.init(path:create:loggers:)`).
    let loggers: EngineLoggers

    /// Saves a snapshot: one per post, the newest replacing an older one. A snapshot that has
    /// no JSON form (a non-finite offset) is refused with the key path, and nothing is written.
    public func saveSnapshot(_ snapshot: PositionSnapshot, scope: StoreScope) async throws(StoreError) {
        let savedAt = (snapshot.savedAt ?? Date()).timeIntervalSince1970
        try await database.write { db in
            let json = try JSONWriter(style: .compact).write(SnapshotCoding.value(of: snapshot))
            try db.execute(
                sql: "INSERT OR REPLACE INTO positionHistory (account, timeline, postId, savedAt, snapshot) VALUES (?, ?, ?, ?, ?)",
                arguments: [scope.account, scope.timeline, snapshot.postId, savedAt, json])
        }
        TimelineStore.logSave(snapshot, scope: scope, device: nil, to: loggers.position)
    }

    /// The saved snapshots of `scope`, newest first.
    public func history(scope: StoreScope) async throws(StoreError) -> [PositionSnapshot] {
        try await database.read { db in try Self.history(scope: scope, db: db) }
    }

    static func history(scope: StoreScope, db: Database) throws -> [PositionSnapshot] {
        try String.fetchAll(
            db, sql: "SELECT snapshot FROM positionHistory WHERE account = ? AND timeline = ? ORDER BY savedAt DESC, postId",
            arguments: [scope.account, scope.timeline]
        ).compactMap { try? SnapshotCoding.read(Data($0.utf8)) }
    }

    /// Marks `ids` read at `date`.
    public func markRead(_ ids: [String], scope: StoreScope, at date: Date) async throws(StoreError) {
        try await database.write { db in
            let statement = try db.makeStatement(sql: "INSERT OR REPLACE INTO readPost (account, timeline, postId, readAt) VALUES (?, ?, ?, ?)")
            for id in ids { try statement.execute(arguments: [scope.account, scope.timeline, id, date.timeIntervalSince1970]) }
            try Self.appendRecentReads(ids.map { ReadDigest(post: ReadPosts.digest(of: $0)) }, scope: scope, db: db)
        }
    }

    /// Marks `posts` read at `date`, with what tells a boost or a re-draft of them
    /// (`ReadPosts.insert`): a boost marks the post it boosts read too; a post keeps its author
    /// and the hashes of its words.
    public func markRead(posts: [Post], scope: StoreScope, at date: Date) async throws(StoreError) {
        guard !posts.isEmpty else { return }
        try await database.write { db in
            let statement = try db.makeStatement(
                sql: "INSERT OR REPLACE INTO readPost (account, timeline, postId, readAt, author, words) VALUES (?, ?, ?, ?, ?, ?)")
            let time = date.timeIntervalSince1970
            var digests: [ReadDigest] = []
            for post in posts {
                if let original = post.boostOf {
                    for id in [original, post.id] {
                        try statement.execute(arguments: [scope.account, scope.timeline, id, time, nil as String?, nil as Data?])
                        digests.append(ReadDigest(post: ReadPosts.digest(of: id)))
                    }
                    continue
                }
                let fingerprint = ContentFingerprint(post.text)
                let author = fingerprint == nil ? nil : post.author
                try statement.execute(arguments: [scope.account, scope.timeline, post.id, time, author, fingerprint.map(Self.column(of:))])
                let content = author.flatMap { author in fingerprint.map { ReadDigest.content(author: author, fingerprint: $0) } }
                digests.append(ReadDigest(post: ReadPosts.digest(of: post.id), content: content ?? ReadDigest.noContent))
            }
            try Self.appendRecentReads(digests, scope: scope, db: db)
        }
    }

    /// What the reader has read in `scope` (`ReadPosts`), the earliest read first, with the
    /// content each post kept.
    public func readPosts(scope: StoreScope, limit: Int = 5_000) async throws(StoreError) -> ReadPosts {
        try await database.read { db in
            var read = ReadPosts(limit: limit)
            let rows = try Row.fetchCursor(
                db, sql: "SELECT postId, author, words FROM readPost WHERE account = ? AND timeline = ? ORDER BY readAt, postId",
                arguments: [scope.account, scope.timeline])
            while let row = try rows.next() {
                let words: Data? = try row.stored(2)
                read.insert(id: try row.stored(0), author: try row.stored(1), fingerprint: words.map(Self.fingerprint(fromColumn:)))
            }
            return read
        }
    }

    /// A fingerprint as its `words` column keeps it: eight little-endian bytes per word.
    static func column(of fingerprint: ContentFingerprint) -> Data {
        fingerprint.words.map(\.littleEndian).withUnsafeBufferPointer { Data(buffer: $0) }
    }

    /// The digests of the posts read last in `scope`, earliest first, at most
    /// `PositionRecord.maximumReads`: what a save carries to the other devices.
    static func recentReads(scope: StoreScope, db: Database) throws -> [ReadDigest] {
        let data = try Data.fetchOne(
            db.cachedStatement(sql: "SELECT digests FROM recentReads WHERE account = ? AND timeline = ?"), arguments: [scope.account, scope.timeline])
        return data.flatMap { ReadDigest.digests(from: [UInt8]($0)) } ?? []
    }

    /// Adds `digests`, read now, to the scope's recent reads: a post read again moves to the end,
    /// and the earliest go past the limit.
    static func appendRecentReads(_ digests: [ReadDigest], scope: StoreScope, db: Database) throws {
        guard !digests.isEmpty else { return }
        let added = Set(digests.map(\.post))
        var kept = try recentReads(scope: scope, db: db).filter { !added.contains($0.post) }
        kept.append(contentsOf: digests)
        try setRecentReads(Array(kept.suffix(PositionRecord.maximumReads)), scope: scope, db: db)
    }

    /// Makes the scope's recent reads again from its read posts (after a migration, or an
    /// eviction of read posts).
    static func rebuildRecentReads(scope: StoreScope, db: Database) throws {
        let rows = try Row.fetchAll(
            db, sql: "SELECT postId, author, words FROM readPost WHERE account = ? AND timeline = ? ORDER BY readAt DESC, rowid DESC LIMIT ?",
            arguments: [scope.account, scope.timeline, PositionRecord.maximumReads])
        let digests = try rows.reversed().map { row throws -> ReadDigest in
            let author: String? = try row.stored(1)
            let words: Data? = try row.stored(2)
            let content = author.flatMap { author in words.map { ReadDigest.content(author: author, fingerprint: fingerprint(fromColumn: $0)) } }
            return ReadDigest(post: ReadPosts.digest(of: try row.stored(0)), content: content ?? ReadDigest.noContent)
        }
        try setRecentReads(digests, scope: scope, db: db)
    }

    private static func setRecentReads(_ digests: [ReadDigest], scope: StoreScope, db: Database) throws {
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO recentReads (account, timeline, digests) VALUES (?, ?, ?)")
            .execute(arguments: [scope.account, scope.timeline, Data(ReadDigest.bytes(of: digests))])
    }

    /// A read post's fingerprint from its `words` column: eight little-endian bytes per word.
    static func fingerprint(fromColumn data: Data) -> ContentFingerprint {
        ContentFingerprint(
            words: data.withUnsafeBytes { raw in
                (0..<raw.count / 8).map { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self)) }
            })
    }

    /// The read post ids of `scope`, most recently read first.
    public func readPostIds(scope: StoreScope) async throws(StoreError) -> [String] {
        try await database.read { db in
            try String.fetchAll(
                db, sql: "SELECT postId FROM readPost WHERE account = ? AND timeline = ? ORDER BY readAt DESC, postId",
                arguments: [scope.account, scope.timeline])
        }
    }

    /// Saves the last restoration; one that has no JSON form is refused, and nothing is written.
    public func saveRestoration(_ restoration: Restoration, scope: StoreScope, at date: Date) async throws(StoreError) {
        try await database.write { db in
            let json = try JSONWriter(style: .compact).write(SnapshotCoding.value(of: restoration))
            try db.execute(
                sql: "INSERT OR REPLACE INTO lastRestoration (account, timeline, restoredAt, restoration) VALUES (?, ?, ?, ?)",
                arguments: [scope.account, scope.timeline, date.timeIntervalSince1970, json])
        }
    }

    /// The last restoration of `scope`, as JSON, and when it happened.
    public func lastRestoration(scope: StoreScope) async throws(StoreError) -> (json: String, at: Date)? {
        try await database.read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT restoredAt, restoration FROM lastRestoration WHERE account = ? AND timeline = ?",
                    arguments: [scope.account, scope.timeline])
            else { return nil }
            return (try row.stored(1), StoredTime.since1970(try row.stored(0)))
        }
    }
}
