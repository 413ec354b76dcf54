import ArgumentParser
import Foundation
import TimelineEngineKit

/// `engine schema validate --schema SCHEMA.json DATA...`.
struct SchemaValidateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Validate JSON or property-list data files against a JSON Schema.",
        discussion: """
            Supports the draft 2020-12 keywords listed in docs/CONFIGURATION.md, with local $refs. A JSON \
            data file may hold any JSON value, a bare number or string included. Prints \
            FILE: OK for each valid file and one line per error otherwise:
              FILE:LINE:COL: error: KEY.PATH: message

            Exit codes: 0 all valid, 1 some invalid, 2 unreadable file, bad schema or bad usage.

            Examples:
              engine schema validate --schema person.schema.json people/*.json
              engine schema validate --schema person.schema.json alice.json bob.plist
            """
    )

    @Option(name: .long, help: "The JSON Schema file.")
    var schema: String

    @OptionGroup var logging: LoggingOptions

    @Argument(help: "Data files: JSON (any value) or XML property lists.")
    var files: [String]

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one data file") }
    }

    func run() throws {
        let compiled: JSONSchema
        switch DocumentInput.read(schema) {
        case .failure(let failure):
            throw CommandFailure(.unreadable, failure.message)
        case .success(let (document, _)):
            do {
                compiled = try JSONSchema(document)
            } catch {
                let position = error.location.map { ":\($0.line)" + ($0.column.map { ":\($0)" } ?? "") } ?? ""
                throw CommandFailure(.usage, "\(schema)\(position): error: \(error.description)")
            }
        }
        var failed = false
        var unreadable = false
        for file in files {
            switch DocumentInput.read(file) {
            case .failure(let failure):
                Console.error(failure.message)
                if failure.unreadable { unreadable = true } else { failed = true }
            case .success(let (value, _)):
                let result = compiled.validate(value)
                for issue in result.issues {
                    var line = file + ":"
                    if let location = issue.location {
                        line += "\(location.line):"
                        if let column = location.column { line += "\(column):" }
                    }
                    line += " \(issue.severity.rawValue): "
                    if !issue.instancePath.isRoot { line += "\(issue.instancePath): " }
                    line += issue.message
                    if issue.severity == .error { Console.error(line) } else { Console.error(line) }
                }
                if result.isValid {
                    Console.out("\(file): OK")
                } else {
                    failed = true
                }
            }
        }
        if unreadable { throw EngineExit.usage }
        if failed { throw EngineExit.invalid }
    }
}
