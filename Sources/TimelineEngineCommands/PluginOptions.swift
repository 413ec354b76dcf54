import ArgumentParser
import TimelineEngineKit
import TimelineEngineStrategyPlugins

/// `--plugin PATH` (repeatable), for every command that builds strategies: validate, restore,
/// replay, compare and strategies.
struct PluginOptions: ParsableArguments {
    @Option(
        name: .customLong("plugin"),
        help: ArgumentHelp(
            "A strategy plugin to load: a shared library built against the plugin ABI (docs/PLUGINS.md). Repeatable.",
            valueName: "path"))
    var paths: [String] = []

    /// The built-ins with these plugins; a plugin that cannot be loaded stops the command
    /// (exit 2) with its path and why.
    func registry() throws -> StrategyRegistry {
        try Self.load(paths, into: BuiltInStrategies.registry)
    }

    static func load(_ paths: [String], into registry: StrategyRegistry) throws -> StrategyRegistry {
        do {
            return try PluginLoader.load(paths, into: registry)
        } catch {
            throw CommandFailure(.usage, "\(error.path): error: \(error.message)")
        }
    }
}
