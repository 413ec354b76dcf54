import Foundation
import TimelineEngineConfiguration
import TimelineEngineRestoration
import TimelineEngineValueTree

/// Loads strategy plugins (shared libraries speaking the C ABI of `timeline_plugin.h`) into a
/// registry. A plugin is registered whole or not at all: its library must open, export the five
/// entry points with this engine's ABI version, describe itself in valid JSON, declare parameter
/// schemas that compile and names that are free, and pass its own scenarios. Any failure is a
/// `PluginError` naming the file, and the library is closed again.
public enum PluginLoader {
    /// `registry` with the strategies of the plugins at `paths` registered after its own.
    public static func load(_ paths: [String], into registry: StrategyRegistry) throws(PluginError) -> StrategyRegistry {
        var result = registry
        for path in paths {
            let library = try PluginLibrary(path: path)
            do throws(PluginError) {
                let types = try PluginDescription(library: library).types()
                do {
                    result = try result.adding(types)
                } catch {
                    throw PluginError(path: path, error.description.replacingOccurrences(of: "is registered twice", with: "is already registered"))
                }
                do {
                    _ = try result.composedConfigurationSchema()
                } catch {
                    throw PluginError(path: path, "its parameter schemas cannot be composed into the configuration schema: \(error)")
                }
                let check = StrategyCheck(registry: result)
                for type in types {
                    if let failed = check.run(type).first(where: { $0.failure != nil }) {
                        throw PluginError(
                            path: path,
                            "\(type.name) fails its check \(Value.quote(failed.check)): \(failed.failure!) (engine strategies check --plugin \(path) shows every check)"
                        )
                    }
                }
            } catch {
                library.close()
                throw error
            }
        }
        return result
    }

    /// The plugin paths a configuration lists under `Plugins`, relative ones resolved against the
    /// directory of the configuration file at `configurationPath`.
    public static func paths(in configuration: TimelineConfiguration, configurationPath: String?) -> [String] {
        let listed = configuration.plugins
        guard let configurationPath else { return listed }
        let directory = URL(fileURLWithPath: configurationPath).deletingLastPathComponent()
        return listed.map { $0.hasPrefix("/") ? $0 : directory.appendingPathComponent($0).path }
    }
}
