import ArgumentParser

/// `engine sync run|status|watch`: one round, what the rounds left, and live sync in the foreground.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync a store's positions with the other devices, once or live, or show how syncing stands.",
        subcommands: [SyncRunCommand.self, SyncStatusCommand.self, SyncWatchCommand.self]
    )
}
