import ArgumentParser
import Foundation
import TimelineEngineKit
import TimelineEngineStrategyPlugins

/// `--lenient`, for every command that runs the engine on a configuration.
struct LenientOption: ParsableArguments {
    @Flag(
        name: .long,
        help:
            "Run with a configuration that has errors, as the library does: each invalid value falls back to its default (the errors are still printed)."
    )
    var lenient = false
}

/// A configuration and the registry it is built with: the built-ins, the `--plugin` libraries
/// and the ones the configuration lists under `Plugins`.
struct ConfiguredEngine {
    var configuration: TimelineConfiguration
    var registry: StrategyRegistry
}

/// Reads the `--config` file of a command that runs the engine. Diagnostics go to stderr. An
/// unreadable file exits 2; a file with errors exits 1 unless `lenient`, when, as in the
/// library, each invalid value falls back to its default and the command goes on.
enum ConfigurationInput {
    static func load(_ path: String, lenient: Bool = false, plugins: [String] = []) throws -> ConfiguredEngine {
        let (loaded, registry) = try read(path, registry: try PluginOptions.load(plugins, into: BuiltInStrategies.registry))
        for diagnostic in loaded.diagnostics { Console.error(diagnostic.description) }
        if loaded.diagnostics.contains(where: { $0.kind == .unreadable }) { throw EngineExit.usage }
        if !loaded.errors.isEmpty, !lenient { throw EngineExit.invalid }
        for error in TimelineLogging.bootstrap(configuration: loaded.configuration, registry: registry) {
            Console.error("warning: \(error)")
        }
        return ConfiguredEngine(configuration: loaded.configuration, registry: registry)
    }

    /// Reads and validates `path` against `registry`'s schema; when the file lists plugins and
    /// `loadListed` allows, they are loaded and the file is validated again with their strategies
    /// known. Without `loadListed`, the plugins the file lists are only named in the result.
    static func read(_ path: String, registry: StrategyRegistry, loadListed: Bool = true) throws -> (LoadedConfiguration, StrategyRegistry) {
        let (loaded, used, _) = try readListing(path, registry: registry, loadListed: loadListed)
        return (loaded, used)
    }

    /// `read`, with the plugin paths the file lists that were not loaded.
    static func readListing(_ path: String, registry: StrategyRegistry, loadListed: Bool) throws
        -> (LoadedConfiguration, StrategyRegistry, notLoaded: [String])
    {
        let url = URL(fileURLWithPath: path)
        let loaded = ConfigurationLoader(schema: registry.configurationSchema).read(contentsOf: url, displayName: path)
        let listed = PluginLoader.paths(in: loaded.configuration, configurationPath: path)
        guard !listed.isEmpty else { return (loaded, registry, []) }
        guard loadListed else { return (loaded, registry, listed) }
        let extended = try PluginOptions.load(listed, into: registry)
        return (ConfigurationLoader(schema: extended.configurationSchema).read(contentsOf: url, displayName: path), extended, [])
    }
}
