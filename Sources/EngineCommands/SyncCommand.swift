import ArgumentParser

/// `engine sync run|status`: one pull → merge → push round, and what the rounds left.
struct SyncCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Sync a store's positions with the other devices, or show how syncing stands.",
        subcommands: [SyncRunCommand.self, SyncStatusCommand.self]
    )
}
