import ArgumentParser
import Foundation
import TimelineEngineKit

/// `engine plist lint FILE...`: `FILE: OK` on stdout for each good file, `FILE:LINE: message`
/// on stderr for each bad one; exit 1 if any failed.
struct PlistLintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check that files are well-formed property lists.",
        discussion: """
            Prints FILE: OK for each good file on standard output, and FILE:LINE: message for each \
            bad one on standard error, then goes on with the remaining files. Exits 1 if any \
            file failed. Files are checked as they stream through the parser, without being \
            held in memory.

            Examples:
              engine plist lint config/*.plist
              engine plist lint --max-size 134217728 big.plist
            """
    )

    @Option(name: .customLong("max-size"), parsing: .unconditional, help: "Largest file accepted, in bytes (default 64 MiB).")
    var maximumSize: Int = PropertyListReader.defaultMaximumInputSize

    @OptionGroup var logging: LoggingOptions

    @Argument(help: "Property-list files.")
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one file to lint") }
        if maximumSize <= 0 { throw ValidationError("--max-size must be a positive number of bytes, got \(maximumSize)") }
    }

    func run() throws {
        let reader = PropertyListReader(maximumInputSize: maximumSize)
        var failed = false
        var unreadable = false
        for file in files {
            do {
                try reader.check(contentsOf: URL(fileURLWithPath: file))
                Console.out("\(file): OK")
            } catch {
                failed = true
                unreadable = unreadable || error.isUnreadable
                Console.error(DocumentInput.lintLine(file, error))
            }
        }
        // As every command: 2 when a file could not be read at all, else 1 when one is malformed.
        if unreadable { throw EngineExit.usage }
        if failed { throw EngineExit.invalid }
    }
}
