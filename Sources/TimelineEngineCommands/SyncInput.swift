import ArgumentParser
import Foundation
import TimelineEngineKit

/// `--config C` and `--device D`, for the commands that write or sync positions: the merge
/// policy and transport come from the configuration (every device must use the same policy),
/// and the device id from the store unless overridden.
struct SyncOptions: ParsableArguments {
    @Option(name: .long, help: "The configuration whose Sync section applies (default: the built-in defaults).")
    var config: String?

    @Option(name: .long, help: "This device's id (default: the store's own, created once).")
    var device: String?

    @OptionGroup var lenientOption: LenientOption

    @OptionGroup var plugins: PluginOptions

    func configured() throws -> ConfiguredEngine {
        guard let config else { return ConfiguredEngine(configuration: .defaults, registry: try plugins.registry()) }
        return try ConfigurationInput.load(config, lenient: lenientOption.lenient, plugins: plugins.paths)
    }

    func components(_ engine: ConfiguredEngine) throws -> SyncComponents {
        do {
            return try SyncComponents(configuration: engine.configuration, registry: engine.registry)
        } catch {
            throw CommandFailure(.invalidInput, "error: \(error.description)")
        }
    }

    /// What a syncing command works with, in the order its errors are reported: the
    /// configuration, the policy and transport it names, the store (created if needed) and this
    /// device's id.
    func open(_ storeOptions: StoreOptions) async throws -> (
        engine: ConfiguredEngine, components: SyncComponents, store: TimelineStore, device: String
    ) {
        let engine = try configured()
        let components = try components(engine)
        let store = try await storeOptions.open(create: true)
        return (engine, components, store, try await deviceId(store))
    }

    func deviceId(_ store: TimelineStore) async throws -> String {
        do {
            return try await store.sync.deviceId(override: device)
        } catch {
            throw CommandFailure(error)
        }
    }
}
