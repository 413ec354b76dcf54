import ArgumentParser

/// `engine sync run|status|watch|phrase`: one round, what the rounds left, live sync in the
/// foreground, and a recovery phrase to seal positions with.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync a store's positions with the other devices, once or live, or show how syncing stands.",
        subcommands: [SyncRunCommand.self, SyncStatusCommand.self, SyncWatchCommand.self, SyncPhraseCommand.self]
    )
}
