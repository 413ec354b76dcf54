import ArgumentParser
import Foundation
import TimelineEngineKit

/// `engine maintenance --store PATH --config C`: trims the store by the configured policies.
struct MaintenanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "maintenance",
        abstract: "Trim a store's cached posts, position history and read posts by the configured cache policies.",
        discussion: """
            Cached timeline entries follow TimelineCache.Policy (by default TTL of MaxAge, then \
            LRU to MaxCacheSize); the position history keeps the newest MaxHistorySize \
            snapshots, and the read posts the newest MaxReadPosts. With --memory-use at or above \
            Performance.MemoryWarningThreshold, every cache shrinks further to its floor \
            (TimelineCache.MemoryPressureFloor posts and read ids; the newest saved position). \
            Prints what was removed.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: "The configuration file (plist, Info.plist or JSON; default: the built-in defaults).")
    var config: String?

    @Option(
        name: .customLong("memory-use"), parsing: .unconditional,
        help: "The fraction of memory in use (0…1) as the app measured it, or 'system' to read this machine's.")
    var memoryUse: String?

    @OptionGroup var lenientOption: LenientOption

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        if let memoryUse, memoryUse != "system", Double(memoryUse).map({ (0...1).contains($0) }) != true {
            throw ValidationError("--memory-use takes a fraction from 0 to 1, or 'system'; got \(Value.quote(memoryUse))")
        }
    }

    func run() async throws {
        let configured =
            try config.map { try ConfigurationInput.load($0, lenient: lenientOption.lenient) }
            ?? ConfiguredEngine(configuration: .defaults, registry: BuiltInStrategies.registry)
        var use: Double?
        if memoryUse == "system" {
            guard let measured = SystemMemory.usedFraction() else {
                throw CommandFailure(.usage, "error: this system does not report its memory use; give --memory-use a fraction")
            }
            use = measured
        } else {
            use = memoryUse.flatMap(Double.init)
        }
        let engine: TimelineEngine
        do {
            engine = try await TimelineEngine(
                configuration: configured.configuration, registry: configured.registry, store: try await storeOptions.open(create: false))
        } catch let error as PipelineError {
            throw CommandFailure(.invalidInput, "error: \(error.description)")
        }
        let result: TimelineEngine.MaintenanceResult
        do {
            result = try await engine.performMaintenance(memoryUse: use)
        } catch let error as StoreError {
            throw CommandFailure(error)
        } catch {
            throw CommandFailure(.invalidInput, "error: \(error)")
        }
        if let use {
            let threshold = configured.configuration.performance.memoryWarningThreshold
            Console.out(
                result.underMemoryPressure
                    ? "memory use \(String(format: "%.2f", use)) ≥ MemoryWarningThreshold \(String(format: "%.2f", threshold)): caches shrink to their floors"
                    : "memory use \(String(format: "%.2f", use)) < MemoryWarningThreshold \(String(format: "%.2f", threshold)): regular bounds")
        }
        let report = result.removed
        Console.out(
            "removed \(report.cachedPosts) cached post\(report.cachedPosts == 1 ? "" : "s"), \(report.snapshots) saved position\(report.snapshots == 1 ? "" : "s"), \(report.readPosts) read post id\(report.readPosts == 1 ? "" : "s")"
        )
    }
}
