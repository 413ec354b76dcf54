import ArgumentParser
import Foundation
import RestorationEngine
import StrategyKit
import TimelineStore
import TimelineEngine
import ValueTree

/// `engine maintenance --store PATH --config C`: trims the store by the configured policies.
struct MaintenanceCommand: ParsableCommand {
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

    @Option(name: .long, help: "The store file (SQLite).")
    var store: String

    @Option(name: .long, help: "The configuration file (plist, Info.plist or JSON).")
    var config: String

    @Option(name: .customLong("memory-use"),
            help: "The fraction of memory in use (0…1) as the app measured it, or 'system' to read this machine's.")
    var memoryUse: String?

    func run() throws {
        let configuration = try ConfigurationInput.load(config)
        let builder = CachePolicyBuilder(configuration: configuration)
        var use: Double?
        if let memoryUse {
            if memoryUse == "system" {
                guard let measured = SystemMemory.usedFraction() else {
                    Console.error("error: this system does not report its memory use; give --memory-use a fraction")
                    throw EngineExit.usage
                }
                use = measured
            } else if let fraction = Double(memoryUse), (0...1).contains(fraction) {
                use = fraction
            } else {
                Console.error("error: --memory-use takes a fraction from 0 to 1, or 'system'; got \(Value.quote(memoryUse))")
                throw EngineExit.usage
            }
        }
        let policies: CachePolicyBuilder.MaintenancePolicies
        do throws(PipelineError) {
            policies = try builder.maintenancePolicies(memoryUse: use)
        } catch {
            Console.error("error: \(error.description)")
            throw EngineExit.invalid
        }
        let opened = try StoreOptions.parse(["--store", store]).open()
        do {
            if let use {
                let threshold = configuration.performance.memoryWarningThreshold
                Console.out(policies.underMemoryPressure
                    ? "memory use \(String(format: "%.2f", use)) ≥ MemoryWarningThreshold \(String(format: "%.2f", threshold)): caches shrink to their floors"
                    : "memory use \(String(format: "%.2f", use)) < MemoryWarningThreshold \(String(format: "%.2f", threshold)): regular bounds")
            }
            let report = try opened.performMaintenance(timelinePolicy: policies.timeline, historyPolicy: policies.history,
                                                       readPostsPolicy: policies.readPosts, now: Date())
            Console.out("removed \(report.cachedPosts) cached post\(report.cachedPosts == 1 ? "" : "s"), \(report.snapshots) saved position\(report.snapshots == 1 ? "" : "s"), \(report.readPosts) read post id\(report.readPosts == 1 ? "" : "s")")
        } catch {
            Console.error(error.description)
            throw EngineExit.invalid
        }
    }
}
