import ArgumentParser

/// `engine schema`: JSON Schema tools.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Validate data against a JSON Schema, or print the configuration schema.",
        subcommands: [SchemaValidateCommand.self, SchemaPrintCommand.self]
    )
}
