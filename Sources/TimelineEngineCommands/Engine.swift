import ArgumentParser
import Foundation
import TimelineEngineKit
import TimelineEngineStrategyPlugins

#if NIOClient
import TimelineEngineNIOHTTP
#elseif URLSessionClient
import TimelineEngineURLSessionHTTP
#endif

/// The `engine` command: validate configurations, read and convert property lists, validate
/// data against JSON Schemas.
public struct Engine: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "engine",
        abstract: "TimelineEngine's command-line tool: keeps a reader's place in a timeline.",
        discussion: """
            Exit codes: 0 success, 1 invalid input or a failed operation, 2 unreadable file or bad \
            usage, 3 offline (sync: the transport cannot be reached; the outbox keeps the changes).
            """,
        version: EngineVersion.current,
        subcommands: [
            ValidateCommand.self, CompareCommand.self, RestoreCommand.self, ReplayCommand.self, SimulateCommand.self,
            TimelineCommand.self, HistoryCommand.self, PositionCommand.self, SyncCommand.self, ServeCommand.self, MaintenanceCommand.self,
            DebugExportCommand.self, StrategiesCommand.self, PlistCommand.self, SchemaCommand.self,
            ConfigCommand.self,
        ]
    )

    public init() {}

    /// Runs the command line and exits with the documented codes: a `CommandFailure` by its
    /// kind, argument errors with 2 (not ArgumentParser's 64).
    public static func runAndExit(arguments: [String]? = nil) async -> Never {
        // The package trait chooses the client (Package.swift): AsyncHTTPClient links no
        // FoundationNetworking; URLSession needs nothing built. With neither, a request fails
        // saying that no client was bootstrapped.
        #if NIOClient
        HTTPExchanges.bootstrap(NIOHTTPExchange())
        #elseif URLSessionClient
        HTTPExchanges.bootstrap(URLSessionExchange())
        #endif
        PluginDeadline.install()
        do {
            var command = try parseAsRoot(arguments)
            // The one bootstrap of the process: the flags now, the configuration once loaded.
            LoggingOptions.bootstrap(for: command)
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
            await TimelineStore.closeAll()
            Foundation.exit(0)
        } catch let code as ExitCode {
            await TimelineStore.closeAll()
            Foundation.exit(code.rawValue)
        } catch {
            // What the command wrote is in its store's file before the process ends.
            await TimelineStore.closeAll()
            if let failure = (error as? CommandFailure) ?? (error as? StoreError).map(CommandFailure.init) {
                Console.error(failure.message)
                Foundation.exit(failure.kind.exitCode.rawValue)
            }
            let code = exitCode(for: error)
            if code == .success {
                exit(withError: error)
            }
            Console.error(fullMessage(for: error))
            Foundation.exit(EngineExit.usage.rawValue)
        }
    }
}

/// The deadline of every call into a plugin: `ENGINE_PLUGIN_TIMEOUT` seconds (default 10). A
/// call that overruns it ends the command with its plugin and call named, exit 1: a plugin that
/// never returns cannot hold `replay` or `compare` forever.
enum PluginDeadline {
    static let variable = "ENGINE_PLUGIN_TIMEOUT"
    static let defaultSeconds = 10.0

    static func install() {
        // One variable read, not Foundation's dictionary of the whole environment: this runs at
        // the start of every command.
        let written = getenv(variable).map { String(cString: $0) }
        let seconds = written.flatMap(Double.init).flatMap { $0 > 0 && $0 <= 86_400 ? $0 : nil } ?? defaultSeconds
        PluginWatchdog.install(limit: seconds) { overrun in
            FileHandle.standardError.write(Data((overrun.message + "; stopped (\(variable) sets the deadline in seconds)\n").utf8))
            // The stuck call cannot be unwound: end the process here, as a failed command.
            _exit(EngineExit.invalid.rawValue)
        }
    }
}

/// The tool's version.
public enum EngineVersion {
    public static let current = "0.1.0"
}

/// The exit codes every subcommand uses.
public enum EngineExit {
    /// Everything was valid.
    public static let success = ExitCode(0)
    /// Some input was invalid.
    public static let invalid = ExitCode(1)
    /// A file could not be read, or the command line was wrong.
    public static let usage = ExitCode(2)
    /// The sync transport could not be reached (offline): the outbox keeps the changes.
    public static let offline = ExitCode(3)
}
