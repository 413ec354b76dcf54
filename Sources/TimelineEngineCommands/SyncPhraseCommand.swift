import ArgumentParser
import Foundation
import TimelineEngineKit

/// `engine sync phrase`: a new recovery phrase to seal positions with, and its key's id.
struct SyncPhraseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "phrase",
        abstract: "Print a new recovery phrase to seal positions end to end with, and its key's id.",
        discussion: """
            Give the phrase to every device of the reader, in the environment variable that \
            Sync.EncryptionPhraseVariable names; keep it where passwords are kept. The key's id is what \
            sealed heads carry in the clear: two devices with the same id hold the same key. With \
            --key-id, prints the id of the phrase in the variable VARIABLE instead. Needs the \
            SyncEncryption trait for the key's id.
            """
    )

    @Option(name: .customLong("key-id"), help: ArgumentHelp("Print the key id of the phrase in this environment variable.", valueName: "VARIABLE"))
    var variable: String?

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let phrase: String
        if let variable {
            guard let given = ProcessInfo.processInfo.environment[variable], !given.isEmpty else {
                throw CommandFailure(.usage, "error: \(variable) is not set: set it to the recovery phrase")
            }
            phrase = given
        } else {
            phrase = SyncKey.newPhrase()
            Console.out(phrase)
        }
        do {
            Console.out("key id: \(try SyncKey(phrase: phrase).id)")
        } catch {
            if variable != nil { throw CommandFailure(.usage, "error: \(error.description)") }
            Console.out("key id: unknown (\(error.description))")
        }
    }
}
