#if SyncServer
import ArgumentParser
import Foundation
import TimelineEngineSyncServer
import TimelineEngineKit

/// `engine serve token create|revoke|list`.
struct ServeTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Create, revoke or list the sync server's bearer tokens.",
        subcommands: [Create.self, Revoke.self, List.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create",
            abstract: "Create a bearer token for a user; it is printed once, alone on the last line.",
            discussion: """
                The server keeps only the token's SHA-256: the token cannot be shown again. \
                Devices read it from an environment variable (ENGINE_SYNC_TOKEN by default), \
                never from a file or the command line.

                Example:
                  engine serve token create --store server.sqlite --user alice \\
                    | tail -1 > alice.token
                """
        )

        @OptionGroup var storage: ServerStorageOptions

        @Option(name: .long, help: "The user the token acts for (created if new).")
        var user: String

        @OptionGroup var logging: LoggingOptions

        func validate() throws {
            guard !user.isEmpty, user.count <= 200, TerminalText.isPrintable(user) else {
                throw ValidationError("--user must be 1 to 200 characters, none of them a control character")
            }
        }

        func run() async throws {
            let token = ServerTokens.make()
            let user = self.user
            let id = try await storage.with(logger: logging.logger(.sync)) { storage in
                try await storage.addToken(hash: ServerTokens.hash(token), user: user, at: Date())
            }
            Console.out("token \(id) for user \(user); the server keeps only its hash, so it is shown this once:")
            Console.out(token)
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke",
            abstract: "Revoke a token by its id (from token create or token list); it stops working at once.")

        @OptionGroup var storage: ServerStorageOptions

        @Option(name: .long, help: "The token's id.")
        var id: Int64

        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let id = self.id
            let revoked = try await storage.with(logger: logging.logger(.sync), create: false) { storage in
                try await storage.revokeToken(id: id, at: Date())
            }
            guard revoked else { throw CommandFailure(.invalidInput, "error: no token \(id) to revoke (unknown, or revoked already)") }
            Console.out("token \(id) revoked")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the tokens: id, user, created, revoked.")

        @OptionGroup var storage: ServerStorageOptions

        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let tokens = try await storage.with(logger: logging.logger(.sync), create: false) { storage in try await storage.tokens() }
            for token in tokens {
                let revoked = token.revokedAt.map { "revoked \(Timestamp.format($0))" } ?? "active"
                Console.out("\(token.id)\t\(TerminalText.distinct(token.user))\tcreated \(Timestamp.format(token.createdAt))\t\(revoked)")
            }
        }
    }
}
#endif
