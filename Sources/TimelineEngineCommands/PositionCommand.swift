import ArgumentParser

/// `engine position save|show|forget`: a store's position registers, as an app writes and
/// reads them, with what sync needs (the outbox, tombstones, every device's last position).
struct PositionCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "position",
        abstract: "Save, show or forget a timeline's reading position in a store, as the app does.",
        subcommands: [PositionSaveCommand.self, PositionShowCommand.self, PositionForgetCommand.self]
    )
}
