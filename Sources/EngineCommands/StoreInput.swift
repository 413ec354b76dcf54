import ArgumentParser
import TimelineStore

/// `--store PATH [--account A] [--timeline T]`, shared by the commands that read the store.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: "The store file (SQLite), as the app's TimelineEngine writes it.")
    var store: String

    @Option(name: .long, help: "The account whose state to use.")
    var account: String = StoreScope().account

    @Option(name: .customLong("timeline-name"), help: "The timeline whose state to use.")
    var timelineName: String = StoreScope().timeline

    var scope: StoreScope { StoreScope(account: account, timeline: timelineName) }

    /// Opens the store; a store that cannot be used is reported and exits 1 (2 when missing).
    func open() throws -> TimelineStore {
        do {
            return try TimelineStore(path: store)
        } catch {
            Console.error(error.description)
            throw error.message.hasPrefix("cannot create") ? EngineExit.usage : EngineExit.invalid
        }
    }
}

/// `--store PATH [--account A] [--timeline T]` for the `timeline` commands, where `--timeline`
/// names the timeline in the store (there is no timeline file to confuse it with).
struct TimelineScopeOptions: ParsableArguments {
    @Option(name: .long, help: "The store file (SQLite).")
    var store: String

    @Option(name: .long, help: "The account the timeline belongs to.")
    var account: String = StoreScope().account

    @Option(name: .customLong("timeline"), help: "The timeline's name in the store.")
    var timelineName: String = StoreScope().timeline

    var scope: StoreScope { StoreScope(account: account, timeline: timelineName) }

    /// Opens the store as `StoreOptions.open` does.
    func open() throws -> TimelineStore {
        try StoreOptions.parse(["--store", store]).open()
    }
}
