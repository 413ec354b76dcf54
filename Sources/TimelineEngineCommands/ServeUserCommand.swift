#if SyncServer
import ArgumentParser
import Foundation
import TimelineEngineSyncServer
import TimelineEngineKit

/// `engine serve user export|erase`: a user's right to take their data and to have it erased.
struct ServeUserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Export or erase everything the sync server keeps of a user.",
        discussion: """
            A user's own token may do the same over HTTP: GET /v1/user exports, DELETE /v1/user \
            erases (docs/SERVER.md, "Data rights").
            """,
        subcommands: [Export.self, Erase.self]
    )

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write every register, head and token record of a user as JSON.",
            discussion: """
                Tokens are listed without their hashes; each head is the record devices sent, as \
                the sync wire format writes it.

                Example:
                  engine serve user export --store server.sqlite --user alice -o alice.json
                """
        )

        @OptionGroup var storage: ServerStorageOptions

        @Option(name: .long, help: "The user.")
        var user: String

        @Option(name: .shortAndLong, help: "Write the export to this file instead of standard output.")
        var output: String?

        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let name = user
            let logger = logging.logger(.sync)
            let export = try await storage.with(logger: logger, create: false) { storage -> UserExport in
                guard let found = try await storage.user(named: name) else { throw ServeUserCommand.unknown(name) }
                return try await storage.export(user: found)
            }
            logger.info("user exported", metadata: export.logMetadata(by: "command"))
            let text = export.json(exportedAt: Date())
            guard let output else { return Console.out(text) }
            try OutputFile.write(Data((text + "\n").utf8), to: output, what: "the export")
            Console.out("exported \(export.registers.count) register\(export.registers.count == 1 ? "" : "s") of user \(name) to \(output)")
        }
    }

    struct Erase: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "erase",
            abstract: "Erase every register, head and token of a user, leaving a tombstone so that old heads cannot come back.",
            discussion: """
                The user's devices can no longer sync with their tokens; a new token for the user \
                starts from nothing, and a device's writes from before the erasure are refused.

                Example:
                  engine serve user erase --store server.sqlite --user alice
                """
        )

        @OptionGroup var storage: ServerStorageOptions

        @Option(name: .long, help: "The user.")
        var user: String

        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let name = user
            let logger = logging.logger(.sync)
            let erasure = try await storage.with(logger: logger, create: false) { storage -> UserErasure in
                guard let found = try await storage.user(named: name) else { throw ServeUserCommand.unknown(name) }
                return try await storage.erase(user: found, at: Date())
            }
            logger.info("user erased", metadata: erasure.logMetadata(by: "command"))
            Console.out(
                """
                erased user \(name): \(erasure.registers) register\(erasure.registers == 1 ? "" : "s"), \(erasure.heads) head\(erasure.heads == 1 ? "" : "s"), \
                \(erasure.tokens) token\(erasure.tokens == 1 ? "" : "s"); from now on the server refuses writes in the clear made before now, \
                and sealed writes no later than the last it holds of each of the user's \(erasure.devices) device\(erasure.devices == 1 ? "" : "s")
                """)
        }
    }

    static func unknown(_ user: String) -> CommandFailure {
        CommandFailure(.invalidInput, "error: no user \(Value.quote(user)) on this server")
    }
}
#endif
