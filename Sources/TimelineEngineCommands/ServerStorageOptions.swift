#if SyncServer
import ArgumentParser
import Foundation
import Logging
import TimelineEngineSyncServer

/// `--store PATH` (SQLite, the default) or `--database postgres://…`: where `engine serve`
/// keeps users, tokens and registers.
struct ServerStorageOptions: ParsableArguments {
    @Option(name: .long, help: "The server's SQLite database (created if needed).")
    var store: String?

    @Option(name: .long, help: "A PostgreSQL URL, postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE, instead of --store.")
    var database: String?

    func validate() throws {
        guard (store == nil) != (database == nil) else {
            throw ValidationError(store == nil ? "missing --store PATH (or --database postgres://…)" : "give --store or --database, not both")
        }
    }

    /// Opens the storage; with PostgreSQL, `run` must run the client for as long as it is used.
    /// Unless `create`, a `--store` that does not exist is an error (exit 2) and is not created:
    /// commands that only read or change what is there never make an empty server database.
    /// `serving` is for `engine serve`: a warm PostgreSQL pool that listens for other instances.
    func open(logger: Logger, create: Bool = true, serving: Bool = false)
        throws -> (storage: any RegisterStorage, run: (@Sendable (_ onStart: @escaping @Sendable () -> Void) async -> Void)?)
    {
        if let store {
            if !create, !FileManager.default.fileExists(atPath: store) {
                throw CommandFailure(.unreadable, "\(store): error: no such store")
            }
            do {
                return (try SQLiteRegisterStorage(path: store), nil)
            } catch {
                throw CommandFailure(.failed, "error: \(error)")
            }
        }
        let url = database ?? ""
        do {
            let storage = try PostgresRegisterStorage(url: url, logger: logger, serving: serving)
            return (storage, { onStart in await storage.run(onStart: onStart) })
        } catch {
            throw CommandFailure(.usage, "error: \(error)")
        }
    }

    /// Runs `body` with the storage open (and, with PostgreSQL, its client running).
    func with<T: Sendable>(
        logger: Logger, create: Bool = true, serving: Bool = false,
        _ body: @Sendable (any RegisterStorage) async throws -> T
    ) async throws -> T {
        let (storage, run) = try open(logger: logger, create: create, serving: serving)
        guard let run else { return try await body(storage) }
        let (started, signal) = AsyncStream<Void>.makeStream()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await run { signal.finish() }
                return nil
            }
            defer { group.cancelAll() }
            // The pool runs before the first statement, and then the body is let go; the yield
            // leaves the pool's task the moment it needs to mark itself running.
            for await _ in started {}
            await Task.yield()
            do {
                return try await body(storage)
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw CommandFailure(.failed, "error: the database: \(error)")
            }
        }
    }
}
#endif
