import ArgumentParser
import Logging
import TimelineEngineKit

/// `--verbose` and `--quiet`, shared by every subcommand.
///
/// `engine` bootstraps swift-log once, before the command runs, with these flags alone; a
/// command that loads a configuration then takes its `Debug` levels and `Logging.Sinks`, the
/// flags still winning (`ConfigurationInput`).
struct LoggingOptions: ParsableArguments {
    @Flag(name: .long, help: "Log everything, in every category (trace level).")
    var verbose = false

    @Flag(name: .long, help: "Log errors only.")
    var quiet = false

    /// The process's logger for `category`.
    func logger(_ category: LogCategory) -> Logger {
        category.logger
    }

    /// Bootstraps the process's logging for a parsed command: standard error, at the levels of
    /// its `--verbose` and `--quiet` (notices and above for a command without them, such as
    /// `--help`).
    static func bootstrap(for command: any ParsableCommand) {
        var verbosity = LogRouting.Verbosity()
        if let options = of(command) { verbosity = LogRouting.Verbosity(verbose: options.verbose, quiet: options.quiet) }
        TimelineLogging.routing.verbosity = verbosity
        TimelineLogging.bootstrap(levels: LogLevels().applying(verbose: verbosity.verbose, quiet: verbosity.quiet))
    }

    /// The logging options of a parsed command (its `@OptionGroup var logging`), if it has them.
    private static func of(_ command: any ParsableCommand) -> LoggingOptions? {
        for child in Mirror(reflecting: command).children {
            if let group = child.value as? OptionGroup<LoggingOptions> { return group.wrappedValue }
        }
        return nil
    }
}
