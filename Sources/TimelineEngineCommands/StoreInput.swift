import ArgumentParser
import TimelineEngineKit

/// `--store PATH`, for the commands that work on a store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The store file (SQLite), as the app's TimelineEngine writes it.")
    var store: String

    /// Opens the store. Only a command that writes may `create` it: a mistyped path for one
    /// that reads must say "no such store", not leave an empty store behind.
    func open(create: Bool) async throws -> TimelineStore {
        try await Self.open(store, create: create)
    }

    static func open(_ path: String, create: Bool) async throws -> TimelineStore {
        do {
            return try await TimelineStore(path: path, create: create)
        } catch {
            throw CommandFailure(error)
        }
    }
}

/// `--account A --timeline-name T`: whose state in a store a command works on.
struct StoreScopeOptions: ParsableArguments {
    @Option(name: .long, help: "The account whose state to use.")
    var account: String = StoreScope().account

    @Option(name: .customLong("timeline-name"), help: "The timeline whose state to use (its name in the store).")
    var timelineName: String = StoreScope().timeline

    var scope: StoreScope { StoreScope(account: account, timeline: timelineName) }
}
