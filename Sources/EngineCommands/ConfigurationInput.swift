import ArgumentParser
import Configuration
import Foundation

/// `--lenient`, for every command that runs the engine on a configuration.
struct LenientOption: ParsableArguments {
    @Flag(name: .long, help: "Run with a configuration that has errors, as the library does: each invalid value falls back to its default (the errors are still printed).")
    var lenient = false
}

/// Reads the `--config` file of a command that runs the engine. Diagnostics go to stderr. An
/// unreadable file exits 2; a file with errors exits 1 unless `lenient`, when, as in the
/// library, each invalid value falls back to its default and the command goes on.
enum ConfigurationInput {
    static func load(_ path: String, lenient: Bool = false) throws -> TimelineConfiguration {
        let loaded = ConfigurationLoader().read(contentsOf: URL(fileURLWithPath: path), displayName: path)
        for diagnostic in loaded.diagnostics { Console.error(diagnostic.description) }
        if loaded.diagnostics.contains(where: { $0.kind == .unreadable }) { throw EngineExit.usage }
        if !loaded.errors.isEmpty, !lenient { throw EngineExit.invalid }
        return loaded.configuration
    }
}
