import ArgumentParser

/// `engine serve`: the sync server, and its tokens.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the sync server, or manage its tokens.",
        subcommands: [ServeRunCommand.self, ServeTokenCommand.self],
        defaultSubcommand: ServeRunCommand.self
    )
}
