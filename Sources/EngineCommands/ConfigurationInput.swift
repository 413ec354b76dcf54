import Configuration
import Foundation

/// Reads the `--config` file of a command that runs the engine: diagnostics go to stderr; an
/// unreadable file exits 2 and an invalid one 1.
enum ConfigurationInput {
    static func load(_ path: String) throws -> TimelineConfiguration {
        let loaded = ConfigurationLoader().read(contentsOf: URL(fileURLWithPath: path), displayName: path)
        for diagnostic in loaded.diagnostics { Console.error(diagnostic.description) }
        if loaded.diagnostics.contains(where: { $0.kind == .unreadable }) { throw EngineExit.usage }
        if !loaded.errors.isEmpty { throw EngineExit.invalid }
        return loaded.configuration
    }
}
