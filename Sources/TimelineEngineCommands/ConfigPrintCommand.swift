import ArgumentParser
import Foundation
import Logging
import TimelineEngineKit

/// `engine config print [--resolved] [--format plist|json] FILE`.
struct ConfigPrintCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "print",
        abstract: "Print a configuration, or with --resolved the effective one with every default filled in.",
        discussion: """
            For an Info.plist only the SocialFusionTimelineConfiguration dictionary is printed. \
            With --resolved, invalid values are replaced by their defaults (as the library does \
            at run time) and the diagnostics go to standard error; the exit code is then 1.

            Examples:
              engine config print config/Info.plist
              engine config print --resolved --format json app.plist
            """
    )

    @Flag(name: .long, help: "Print the effective configuration, with defaults filled in.")
    var resolved = false

    @Option(name: .long, help: "Output format: plist or json.")
    var format: ConfigurationFormat = .plist

    @OptionGroup var logging: LoggingOptions

    @Argument(help: "A configuration file: standalone plist, Info.plist or JSON.")
    var file: String

    func run() throws {
        let loader = ConfigurationLoader()
        let loaded = loader.read(contentsOf: URL(fileURLWithPath: file), displayName: file)
        for diagnostic in loaded.diagnostics { Console.error(diagnostic.description) }
        if loaded.diagnostics.contains(where: { $0.kind == .unreadable }) { throw EngineExit.usage }
        guard let value = resolved ? loaded.resolved : loaded.document else { throw EngineExit.invalid }
        do {
            switch format {
            case .plist: Console.outRaw(try PropertyListWriter().write(value))
            case .json: Console.outRaw(try JSONWriter(style: .pretty).write(value))
            }
        } catch {
            throw CommandFailure(.invalidInput, "\(file): \(error)")
        }
        if !loaded.errors.isEmpty { throw EngineExit.invalid }
    }
}

extension ConfigurationFormat: ExpressibleByArgument {}
