import ArgumentParser

/// `engine config`: configuration tools.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Show configurations.",
        subcommands: [ConfigPrintCommand.self]
    )
}
