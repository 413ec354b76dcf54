import ArgumentParser

/// `engine plist`: property-list tools in the manner of `plutil`.
struct PlistCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plist",
        abstract: "Check and convert XML property lists, as plutil does.",
        subcommands: [PlistLintCommand.self, PlistConvertCommand.self]
    )
}
