import ArgumentParser
import Logging
import TimelineLogging


/// `--verbose` and `--quiet`, shared by every subcommand.
struct LoggingOptions: ParsableArguments {
    @Flag(name: .long, help: "Log everything, in every category (trace level).")
    var verbose = false

    @Flag(name: .long, help: "Log errors only.")
    var quiet = false

    /// Levels for the command line: notices and above by default.
    var levels: LogLevels { LogLevels().applying(verbose: verbose, quiet: quiet) }

    /// A logger for `category` writing human-readable lines to standard error.
    func logger(_ category: LogCategory) -> Logger {
        TimelineLogging.logger(category, levels: levels, sinks: [StderrLogSink()])
    }
}
