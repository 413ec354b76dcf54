import ArgumentParser

#if SyncServer
/// `engine serve`: the sync server, and its tokens.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the sync server, manage its tokens, or export or erase a user's data.",
        subcommands: [ServeRunCommand.self, ServeTokenCommand.self, ServeUserCommand.self],
        defaultSubcommand: ServeRunCommand.self
    )
}
#else
/// `engine serve` in a build without the SyncServer trait: one line on how to get it, exit 2.
/// The server's dependencies (Hummingbird, postgres-nio, swift-crypto, swift-prometheus) are
/// built only with the trait.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the sync server, or manage its tokens (not in this build: build with --traits SyncServer).",
        discussion: "This engine was built without the package trait SyncServer, which adds the server: swift build --traits SyncServer."
    )

    /// What the command says, whatever it is given.
    static let notBuilt = "error: engine serve is not in this build; build it with the SyncServer trait: swift build --traits SyncServer"

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var arguments: [String] = []

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        throw CommandFailure(.usage, Self.notBuilt)
    }
}
#endif
