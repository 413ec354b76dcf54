import Foundation
import GRDB
import TimelineEngineCore

/// The store's tables, created and upgraded by GRDB's migrator. A migration, once released, is
/// never edited: a change is a new migration appended here.
enum StoreSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // Cached posts of a timeline, in display order.
            try db.create(table: "cachedPost") { table in
                table.column("account", .text).notNull()
                table.column("timeline", .text).notNull()
                table.column("postId", .text).notNull()
                table.column("position", .integer).notNull()
                table.column("createdAt", .double).notNull()
                table.column("author", .text)
                table.column("text", .text)
                table.column("height", .double)
                table.column("storedAt", .double).notNull()
                table.column("lastAccess", .double).notNull()
                table.column("bytes", .integer).notNull()
                table.primaryKey(["account", "timeline", "postId"])
            }
            try db.create(index: "cachedPostOrder", on: "cachedPost", columns: ["account", "timeline", "position"])
            // When each timeline was last refreshed from its source.
            try db.create(table: "timelineState") { table in
                table.column("account", .text).notNull()
                table.column("timeline", .text).notNull()
                table.column("refreshedAt", .double)
                table.column("viewportHeight", .double)
                table.primaryKey(["account", "timeline"])
            }
            // Saved position snapshots (JSON, as engine restore --position reads them), newest first by savedAt.
            try db.create(table: "positionHistory") { table in
                table.column("account", .text).notNull()
                table.column("timeline", .text).notNull()
                table.column("postId", .text).notNull()
                table.column("savedAt", .double).notNull()
                table.column("snapshot", .text).notNull()
                table.primaryKey(["account", "timeline", "postId"])
            }
            try db.create(table: "readPost") { table in
                table.column("account", .text).notNull()
                table.column("timeline", .text).notNull()
                table.column("postId", .text).notNull()
                table.column("readAt", .double).notNull()
                table.primaryKey(["account", "timeline", "postId"])
            }
            try db.create(table: "lastRestoration") { table in
                table.column("account", .text).notNull()
                table.column("timeline", .text).notNull()
                table.column("restoredAt", .double).notNull()
                table.column("restoration", .text).notNull()
                table.primaryKey(["account", "timeline"])
            }
            // Reserved for cross-device sync: changes waiting to be sent.
            try db.create(table: "syncQueue") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("account", .text).notNull()
                table.column("timeline", .text).notNull()
                table.column("kind", .text).notNull()
                table.column("payload", .text).notNull()
                table.column("enqueuedAt", .double).notNull()
            }
        }
        migrator.registerMigration("v2-counters") { db in
            // Cache hits and misses of timeline reads, for debug-export.
            try db.create(table: "storeCounter") { table in
                table.column("name", .text).primaryKey()
                table.column("value", .integer).notNull()
            }
        }
        migrator.registerMigration("v3-last-read") { db in
            // When a timeline was last read: reading it uses every cached post, so a post's last
            // use is the later of its own lastAccess and this, without rewriting every row on
            // each read.
            try db.alter(table: "timelineState") { table in
                table.add(column: "lastReadAt", .double)
            }
        }
        migrator.registerMigration("v4-sync") { db in
            // This device's id, its hybrid clock and what the last sync round did.
            try db.create(table: "syncState") { table in
                table.column("name", .text).primaryKey()
                table.column("value", .text).notNull()
            }
            // Each position register's winning write; a NULL snapshot is a tombstone.
            let columns: (TableDefinition) -> Void = { table in
                table.column("account", .text).notNull()
                table.column("timeline", .text).notNull()
                table.column("hlc", .integer).notNull()
                table.column("device", .text).notNull()
                table.column("savedAt", .double).notNull()
                table.column("epochHlc", .integer).notNull()
                table.column("epochDevice", .text).notNull()
                table.column("progressCreatedAt", .double)
                table.column("progressPostId", .text)
                table.column("snapshot", .text)
            }
            try db.create(table: "positionRegister") { table in
                columns(table)
                table.primaryKey(["account", "timeline"])
            }
            // Each device's own latest write per register, for "Continue from iPad".
            try db.create(table: "devicePosition") { table in
                columns(table)
                table.primaryKey(["account", "timeline", "device"])
            }
            // The outbox, until now reserved and always empty, without AUTOINCREMENT: its
            // bookkeeping table would be one more write in every save.
            try db.drop(table: "syncQueue")
            try db.create(table: "syncQueue") { table in
                table.primaryKey("id", .integer)
                table.column("account", .text).notNull()
                table.column("timeline", .text).notNull()
                table.column("kind", .text).notNull()
                table.column("payload", .text).notNull()
                table.column("enqueuedAt", .double).notNull()
            }
        }
        migrator.registerMigration("v5-heads") { db in
            // Each device's latest write per register, with its sequence number and causal
            // context: the register is its heads, and its value is resolved when read. The
            // winner table goes; the device positions become heads, numbered by their clock's
            // milliseconds, with empty contexts (as version-1 writes of the wire format are).
            try db.create(table: "positionHead") { table in
                table.column("account", .text).notNull()
                table.column("timeline", .text).notNull()
                table.column("device", .text).notNull()
                table.column("sequence", .integer).notNull()
                table.column("hlc", .integer).notNull()
                table.column("savedAt", .double).notNull()
                table.column("epochHlc", .integer).notNull()
                table.column("epochDevice", .text).notNull()
                table.column("progressCreatedAt", .double)
                table.column("progressPostId", .text)
                // The version vector as a JSON object, {"laptop": 3}.
                table.column("context", .text).notNull().defaults(to: "{}")
                table.column("visitSeconds", .double)
                table.column("visitPosts", .integer)
                // What the writer knew of other devices' clocks, {"laptop": 3598120} (ms ahead at least).
                table.column("clocks", .text).notNull().defaults(to: "{}")
                table.column("movesOlder", .integer).notNull().defaults(to: 0)
                table.column("movesNewer", .integer).notNull().defaults(to: 0)
                table.column("snapshot", .text)
                table.primaryKey(["account", "timeline", "device"])
            }
            try db.execute(
                sql: """
                    INSERT INTO positionHead (account, timeline, device, sequence, hlc, savedAt, epochHlc, epochDevice, progressCreatedAt,
                                              progressPostId, snapshot)
                    SELECT account, timeline, device, (hlc >> 16) & 281474976710655, hlc, savedAt, epochHlc, epochDevice, progressCreatedAt,
                           progressPostId, snapshot
                    FROM devicePosition
                    """)
            // A winner is its device's latest write or older: it adds a head only if its device
            // had no row, which the previous release never left.
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO positionHead (account, timeline, device, sequence, hlc, savedAt, epochHlc, epochDevice,
                                                        progressCreatedAt, progressPostId, snapshot)
                    SELECT account, timeline, device, (hlc >> 16) & 281474976710655, hlc, savedAt, epochHlc, epochDevice, progressCreatedAt,
                           progressPostId, snapshot
                    FROM positionRegister
                    """)
            try db.drop(table: "devicePosition")
            try db.drop(table: "positionRegister")
        }
        migrator.registerMigration("v6-gaps") { db in
            // Where the cached timeline is not contiguous: a post with a gap below it, between it
            // and the next cached post, where the source has posts that were never loaded.
            try db.alter(table: "cachedPost") { table in
                table.add(column: "gapBelow", .boolean).notNull().defaults(to: false)
            }
        }
        migrator.registerMigration("v7-revision") { db in
            // A random number drawn again whenever the cached posts change: what a text index
            // kept beside the store names, so that it is used only on the posts it indexes.
            try db.alter(table: "timelineState") { table in
                table.add(column: "revision", .integer)
            }
        }
        migrator.registerMigration("v8-exact-times") { db in
            // A post's time is kept as `Date` holds it, seconds since 2001-01-01
            // (`timeIntervalSinceReferenceDate`), so it reads back bit for bit: through seconds
            // since 1970 a time with milliseconds came back one bit off, and every refresh took
            // unchanged posts for edits. SQLite subtracts as `Date(timeIntervalSince1970:)` does,
            // so a stored time converts to the value it was read as before. The posts' times
            // changed, so the kept text index is made again.
            try db.execute(sql: "UPDATE cachedPost SET createdAt = createdAt - 978307200")
            try db.execute(sql: "UPDATE timelineState SET revision = random() WHERE revision IS NOT NULL")
        }
        migrator.registerMigration("v9-clocks-revision") { db in
            // A head published again with the clock bounds its device learned since
            // (`Register.clocksRepublished`): of two copies of one write, the higher revision wins.
            try db.alter(table: "positionHead") { table in
                table.add(column: "clocksRevision", .integer).notNull().defaults(to: 0)
            }
        }
        migrator.registerMigration("v10-read-content") { db in
            // A boost names the post it boosts; a read post keeps its author and the hashes of
            // its words (`ContentFingerprint`, eight bytes each), so that a boost or a re-draft
            // of it is known as read after the original is gone ("N new above you").
            try db.alter(table: "cachedPost") { table in
                table.add(column: "boostOf", .text)
            }
            try db.alter(table: "readPost") { table in
                table.add(column: "author", .text)
                table.add(column: "words", .blob)
            }
        }
        migrator.registerMigration("v11-head-reads") { db in
            // A head carries the digests of the posts its device read last
            // (`PositionRecord.reads`), eight bytes each, so that a device counts "N new above
            // you" with what the others read. Each scope keeps those digests in one value, kept up
            // as posts are marked read, so that a save reads one value rather than a thousand rows.
            try db.alter(table: "positionHead") { table in
                table.add(column: "reads", .blob)
            }
            try db.create(table: "recentReads") { table in
                table.column("account", .text).notNull()
                table.column("timeline", .text).notNull()
                table.column("digests", .blob).notNull()
                table.primaryKey(["account", "timeline"])
            }
            for row in try Row.fetchAll(db, sql: "SELECT DISTINCT account, timeline FROM readPost") {
                try PositionHistoryStore.rebuildRecentReads(scope: StoreScope(account: try row.stored(0), timeline: try row.stored(1)), db: db)
            }
        }
        return migrator
    }
}
