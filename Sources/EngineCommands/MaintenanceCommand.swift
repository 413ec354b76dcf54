import ArgumentParser
import Foundation
import RestorationEngine
import StrategyKit
import TimelineStore

/// `engine maintenance --store PATH --config C`: trims the store by the configured policies.
struct MaintenanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "maintenance",
        abstract: "Trim a store's cached posts, position history and read posts by the configured cache policies.",
        discussion: """
            Cached timeline entries follow TimelineCache.Policy (by default TTL of MaxAge, then \
            LRU to MaxCacheSize); the position history keeps the newest MaxHistorySize \
            snapshots, and the read posts the newest MaxReadPosts. Prints what was removed.
            """
    )

    @Option(name: .long, help: "The store file (SQLite).")
    var store: String

    @Option(name: .long, help: "The configuration file (plist, Info.plist or JSON).")
    var config: String

    func run() throws {
        let configuration = try ConfigurationInput.load(config)
        let builder = CachePolicyBuilder(configuration: configuration)
        let timelinePolicy: any CachePolicy
        do throws(PipelineError) {
            timelinePolicy = try builder.timelineCache()
        } catch {
            Console.error("error: \(error.description)")
            throw EngineExit.invalid
        }
        let opened = try StoreOptions.parse(["--store", store]).open()
        do {
            let report = try opened.performMaintenance(timelinePolicy: timelinePolicy, historyPolicy: builder.history(),
                                                       readPostsPolicy: builder.readPosts(), now: Date())
            Console.out("removed \(report.cachedPosts) cached post\(report.cachedPosts == 1 ? "" : "s"), \(report.snapshots) saved position\(report.snapshots == 1 ? "" : "s"), \(report.readPosts) read post id\(report.readPosts == 1 ? "" : "s")")
        } catch {
            Console.error(error.description)
            throw EngineExit.invalid
        }
    }
}
