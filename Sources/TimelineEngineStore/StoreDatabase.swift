import Foundation
import GRDB
import Logging
import TimelineEngineSupport
import TimelineEngineValueTree

/// The store's one SQLite file, opened once: a GRDB `DatabasePool` in WAL mode that the timeline
/// cache, the position history and the sync state share. Every access is asynchronous: GRDB
/// runs it on its own queues and suspends the caller, so no store call holds a thread of the
/// cooperative pool or the caller's; opening, which may wait for another process, does its
/// blocking work through `OffPool`.
final class StoreDatabase: Sendable {
    let path: String
    /// The file, as the process's databases are listed (`open`).
    private let key: String
    /// Why the store was opened for reading only (a read-only file system, a full disk), or nil
    /// when it can be changed.
    let readOnlyReason: String?
    /// A pool (WAL) when the store can be written; a queue on a file opened immutable.
    private let pool: any DatabaseWriter
    private let closed = Locked(false)
    /// The file opened (its device and inode), to tell when the path comes to name another.
    let identity: FileSystem.Identity?

    private init(path: String, key: String, pool: any DatabaseWriter, readOnlyReason: String?) {
        self.path = path
        self.key = key
        self.pool = pool
        self.readOnlyReason = readOnlyReason
        identity = FileSystem.identity(path)
    }

    /// The databases open in this process, by file (an entry whose database is gone is one
    /// still closing), and the turns their openings take, one per file: an open that waits for
    /// another process's lock on one file holds up no open of another.
    private static let opened = Locked<[String: WeakDatabase]>([:])
    private static let openings = Locked<[String: SerialTurn]>([:])

    /// Called in a file's turn before it is opened, with the file; for tests, which hold an open
    /// there to show that opens of other files go on.
    static let beforeOpening = Locked<(@Sendable (String) async -> Void)?>(nil)

    /// The turn the openings of the file `key` take.
    private static func opening(_ key: String) -> SerialTurn {
        openings.withLock { turns in
            if let turn = turns[key] { return turn }
            let turn = SerialTurn()
            turns[key] = turn
            return turn
        }
    }

    private struct WeakDatabase {
        weak var database: StoreDatabase?
    }

    /// Closes the connections rather than leaving it to the pool's own deinit, then lets the file
    /// be opened again: until then an open waits (`open`). On a serial queue of its own, which
    /// has a thread of its own: the last reference may go on GRDB's writer queue, where closing
    /// the pool would wait for itself, and a global queue's threads are the cooperative pool's.
    deinit {
        let (pool, closed, key) = (self.pool, self.closed, self.key)
        DispatchQueue(label: "timeline-engine.store-close", qos: .utility).async {
            Self.close(pool, closed)
            // Unless the file was opened anew after `closeAll`: its entry names a live database.
            Self.opened.withLock { if $0[key]?.database == nil { $0.removeValue(forKey: key) } }
        }
    }

    /// The database of the store at `path` (see `TimelineStore.init(path:create:)`): the one
    /// this process has open for that file, or else the file opened now.
    ///
    /// One per file and process, as SQLite needs: closing any descriptor of a file drops every
    /// lock the process holds on it (POSIX), so a second pool opened beside a live one, whose
    /// checks read the file, would silently unlock the first and let another process's write
    /// corrupt the file. Opens of one file take turns, and wait for a database of the file still
    /// closing, for the same reason; opens of different files go on at once.
    static func open(path: String, create: Bool, logger: Logger) async throws(StoreError) -> StoreDatabase {
        let key = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        return try await opening(key).take { () async throws(StoreError) -> StoreDatabase in
            while true {
                let entry = opened.withLock { $0[key] }
                guard let entry else { break }
                if let live = entry.database, !live.closed.withLock({ $0 }) { return live }
                if entry.database != nil { opened.withLock { _ = $0.removeValue(forKey: key) } }
                try? await Task.sleep(for: .milliseconds(1))
            }
            if let hook = beforeOpening.withLock({ $0 }) { await hook(key) }
            let database = try await openFile(path: path, key: key, create: create, logger: logger)
            opened.withLock { $0[key] = WeakDatabase(database: database) }
            return database
        }
    }

    /// Writes the WAL into the file and closes every connection. GRDB's `close()` alone may close
    /// the writer before the readers, and a reader, read-only, cannot checkpoint: the WAL would
    /// stay beside a file read immutable later (a read-only file system), and be missed there.
    private func checkOpen() throws(StoreError) {
        if closed.withLock({ $0 }) { throw StoreError(path: path, "the store was closed") }
    }

    /// Once only: GRDB stops the process on any use of a closed pool.
    func close() {
        Self.close(pool, closed)
    }

    private static func close(_ pool: any DatabaseWriter, _ closed: Locked<Bool>) {
        guard
            closed.withLock({ closed in
                defer { closed = true }
                return !closed
            })
        else { return }
        if pool is DatabasePool {
            _ = try? pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
        }
        try? pool.close()
    }

    /// Closes every store this process opened: what they wrote is checkpointed into the files
    /// (the command line does this before it exits). A store closed is not used again.
    static func closeAll() async {
        let databases = opened.withLock { $0.values.compactMap(\.database) }
        for database in databases {
            await OffPool.run { database.close() }
        }
        // And those dropped and still closing (`deinit`), for up to `busyTimeout`.
        let deadline = ContinuousClock.now + .seconds(TimelineStore.busyTimeout)
        while opened.withLock({ $0.values.contains { $0.database == nil } }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    private static func openFile(path: String, key: String, create: Bool, logger: Logger) async throws(StoreError) -> StoreDatabase {
        let (exists, readOnly, forbidden) = try await OffPool.run { () throws(StoreError) -> (Bool, Bool, Bool) in
            if !create, !FileManager.default.fileExists(atPath: path) {
                throw StoreError(path: path, "no such store", kind: .missing)
            }
            try checkBeforeOpening(path)
            let exists = FileManager.default.fileExists(atPath: path)
            return (exists, exists && FileSystem.isReadOnly(path), exists && !FileSystem.mayWriteStore(path))
        }
        // On a read-only file system nothing can change the file, and SQLite cannot make the
        // files it keeps beside a store (`-shm`, `-wal`) even to read it: the store is opened
        // immutable, for reading only, and a change says why it cannot be made. So it is on a
        // disk too full for them: no process can write it there either. And so it is when this
        // user may not write the store (another user's, or made read-only by its permissions):
        // it is read as the last process to close it left it.
        if readOnly || forbidden {
            return StoreDatabase(
                path: path, key: key, pool: try await openImmutable(path),
                readOnlyReason: readOnly
                    ? "the store is on a read-only file system: it can be read there, not changed"
                    : "this user may not write the store (permission denied): it can be read, not changed")
        }
        do {
            return StoreDatabase(path: path, key: key, pool: try await openForWriting(path, logger: logger), readOnlyReason: nil)
        } catch  where exists && error.isDiskFull {
            return StoreDatabase(path: path, key: key, pool: try await openImmutable(path), readOnlyReason: StoreError.diskFull)
        }
    }

    /// Runs `body` in a write transaction; a store opened for reading only refuses, saying why.
    func write<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        if let readOnlyReason {
            throw StoreError(path: path, readOnlyReason, kind: readOnlyReason == StoreError.diskFull ? .failed : .unusablePath)
        }
        try checkOpen()
        do {
            return try await pool.write(body)
        } catch {
            throw Self.describe(error, path: path)
        }
    }

    /// Runs `body` on a snapshot of the database, beside any write.
    func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) async throws(StoreError) -> T {
        try checkOpen()
        do {
            return try await pool.read(body)
        } catch {
            throw Self.describe(error, path: path)
        }
    }

    // MARK: Opening

    /// Opens the store at `path` for reading and writing, migrating it to the current schema.
    private static func openForWriting(_ path: String, logger: Logger) async throws(StoreError) -> DatabasePool {
        try await retryingWhileBusy(path: path) {
            let pool = try await OffPool.run { () throws -> DatabasePool in
                try inspectExisting(path)
                return try DatabasePool(path: path, configuration: connectionConfiguration(readonly: false))
            }
            // Another process may apply a migration between our check and our change: ours then
            // fails harmlessly, and migrating again goes on from what it applied.
            var attempts = 0
            let applied = (try? await pool.read { db in try StoreSchema.migrator.appliedMigrations(db) }) ?? []
            while true {
                do {
                    try await OffPool.run { () throws in try StoreSchema.migrator.migrate(pool) }
                    TimelineStore.logMigrations(path: path, before: applied, after: StoreSchema.migrator.migrations, to: logger)
                    return pool
                } catch {
                    attempts += 1
                    if (try? await pool.read { db in try StoreSchema.migrator.hasCompletedMigrations(db) }) == true { return pool }
                    guard attempts < 20 else { throw error }
                    try? await Task.sleep(for: .milliseconds(10 * attempts))
                }
            }
        }
    }

    /// Opens the store at `path` immutable, for reading only; it must have the current schema.
    private static func openImmutable(_ path: String) async throws(StoreError) -> DatabaseQueue {
        let immutable = immutableURI(path)
        return try await retryingWhileBusy(path: path) {
            let pool = try await OffPool.run { () throws -> DatabaseQueue in
                try inspectExisting(path, openedAs: immutable)
                return try DatabaseQueue(path: immutable, configuration: connectionConfiguration(readonly: true))
            }
            guard (try? await pool.read { db in try StoreSchema.migrator.hasCompletedMigrations(db) }) == true else {
                throw StoreError(
                    path: path,
                    "the store cannot be written here and was written by an earlier version of TimelineEngine: it must be upgraded where it can be written",
                    kind: .unusablePath)
            }
            return pool
        }
    }

    /// Runs `body` again, after a short random pause, while it fails because another process
    /// holds a lock, for up to `TimelineStore.busyTimeout` in all.
    static func retryingWhileBusy<T: Sendable>(path: String, _ body: () async throws -> T) async throws(StoreError) -> T {
        let deadline = ContinuousClock.now + .seconds(TimelineStore.busyTimeout)
        while true {
            do {
                return try await body()
            } catch let error as StoreError {
                throw error
            } catch  where isTransient(error) && ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(Int.random(in: 5...25)))
            } catch {
                throw describe(error, path: path)
            }
        }
    }

    /// The settings of every connection the store opens: each waits `TimelineStore.busyTimeout` for locks
    /// held by other processes, the read-only inspection as well as the pool.
    static func connectionConfiguration(readonly: Bool) -> Configuration {
        var configuration = Configuration()
        configuration.readonly = readonly
        configuration.busyMode = .timeout(TimelineStore.busyTimeout)
        return configuration
    }

    /// Refuses a file that is not SQLite before SQLite can touch it (SQLite takes a short file
    /// for an empty database), what is not a regular file (a FIFO would block the open for ever,
    /// a device read as a disk), and a new file in a directory that cannot be written.
    static func checkBeforeOpening(_ path: String) throws(StoreError) {
        let manager = FileManager.default
        if manager.fileExists(atPath: path) {
            if let problem = FileData.regularFileProblem(atPath: path) {
                throw StoreError(path: path, "\(problem); a store is a regular file", kind: .unusablePath)
            }
            // Safe only because no connection of this process has the file open now (`open`):
            // closing this descriptor drops every lock the process holds on the file.
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw StoreError(path: path, "cannot read the store: permission denied", kind: .unusablePath)
            }
            defer { try? handle.close() }
            let header: Data
            do {
                header = try handle.read(upToCount: 16) ?? Data()
            } catch {
                // A file that cannot be read from its start, such as /proc/self/mem.
                throw StoreError(path: path, "cannot read the store: \(Self.reason(error))", kind: .unusablePath)
            }
            if !header.isEmpty, header != Data("SQLite format 3\0".utf8) {
                throw StoreError(
                    path: path, "not a SQLite database (it does not start with \"SQLite format 3\"); it is left as it is", kind: .notAStore)
            }
        } else {
            let directory = (path as NSString).deletingLastPathComponent
            let parent = directory.isEmpty ? "." : directory
            guard manager.fileExists(atPath: parent) else {
                throw StoreError(path: path, "cannot create the store: \(parent) does not exist", kind: .unusablePath)
            }
            guard manager.isWritableFile(atPath: parent) else {
                throw StoreError(path: path, "cannot create the store: the directory \(parent) is not writable", kind: .unusablePath)
            }
        }
    }

    /// The system's words for a failed read (`Input/output error`).
    private static func reason(_ error: any Error) -> String {
        if let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        return "\(error)"
    }

    /// Looks at an existing file read-only before anything can write to it: a SQLite file of
    /// another application, a store from a newer version and a damaged database are refused
    /// with the file untouched.
    static func inspectExisting(_ path: String, openedAs location: String? = nil) throws {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > 0 else { return }
        do {
            let queue = try DatabaseQueue(path: location ?? path, configuration: connectionConfiguration(readonly: true))
            defer { try? queue.close() }
            try queue.read { db in
                let tables = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
                if !tables.isEmpty, !tables.contains("grdb_migrations") {
                    throw StoreError(
                        path: path,
                        "a SQLite database of something else, not a TimelineEngine store (its tables: \(tables.prefix(5).joined(separator: ", "))); it is left as it is",
                        kind: .notAStore)
                }
                if !tables.isEmpty, try StoreSchema.migrator.hasBeenSuperseded(db) {
                    throw StoreError(
                        path: path,
                        "the store was written by a newer version of TimelineEngine (its schema has changes this version does not know); it is left as it is",
                        kind: .incompatible)
                }
                let check = try String.fetchAll(db, sql: "PRAGMA quick_check")
                if check != ["ok"] {
                    throw StoreError(
                        path: path, "the database is damaged (quick_check: \(check.prefix(3).joined(separator: "; "))); it is left as it is",
                        kind: .incompatible)
                }
            }
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError where [.SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode) {
            throw error
        } catch {
            throw describe(error, path: path)
        }
    }

    /// Another process holds a lock; or GRDB, turning on WAL mode, looked at the `-wal` file
    /// just as another process closing its last connection deleted it.
    private static func isTransient(_ error: any Error) -> Bool {
        if let error = error as? DatabaseError { return [.SQLITE_BUSY, .SQLITE_LOCKED].contains(error.resultCode) }
        return (error as? CocoaError)?.code == .fileReadNoSuchFile
    }

    static func describe(_ error: any Error, path: String) -> StoreError {
        if let error = error as? StoreError { return error }
        if let error = error as? StoredValueError {
            return StoreError(path: path, "the store is damaged (\(error)); it is left as it is", kind: .incompatible)
        }
        guard let error = error as? DatabaseError else { return StoreError(path: path, "\(error)") }
        switch error.resultCode {
        case .SQLITE_NOTADB:
            return StoreError(
                path: path, "not a SQLite database (it does not start with \"SQLite format 3\"); it is left as it is", kind: .notAStore)
        case .SQLITE_CORRUPT:
            return StoreError(path: path, "the database is damaged (\(error.message ?? "corrupt")); it is left as it is", kind: .incompatible)
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_AUTH:
            return StoreError(path: path, "cannot open the store for writing (\(error.message ?? "\(error.resultCode)"))", kind: .unusablePath)
        case .SQLITE_FULL: return StoreError(path: path, StoreError.diskFull)
        case .SQLITE_IOERR where FileSystem.isFull(path):
            // A write that failed for want of space, as SQLite reports it from some places.
            return StoreError(path: path, StoreError.diskFull)
        default: return StoreError(path: path, error.message ?? "\(error)")
        }
    }

    /// `path` as an SQLite URI that opens it immutable: read without locks, `-shm` or `-wal`.
    static func immutableURI(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#%")
        return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
    }
}
