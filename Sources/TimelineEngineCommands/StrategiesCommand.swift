import ArgumentParser

/// `engine strategies`: the registered strategy types (`list`, the default) and the conformance
/// checks of a strategy, a plugin's above all (`check`).
struct StrategiesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strategies",
        abstract: "List the registered strategy types, or check them against their scenarios.",
        subcommands: [StrategiesListCommand.self, StrategiesCheckCommand.self],
        defaultSubcommand: StrategiesListCommand.self
    )
}
