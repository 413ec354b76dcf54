import ArgumentParser
import Foundation
import TimelineEngineKit

/// `engine debug-export --store PATH [--config C] [--format text|json]`: everything needed to
/// debug a reader's state (the seed's exportStateForDebugging).
struct DebugExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "debug-export",
        abstract: "Print a store's state: summary, position history, cache statistics and the resolved configuration."
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: "The configuration to resolve and include (default: the built-in defaults).")
    var config: String?

    @Option(name: .long, help: "Output format: text or json.")
    var format: TextOrJSON = .text

    @OptionGroup var lenientOption: LenientOption

    @OptionGroup var logging: LoggingOptions

    var store: String { storeOptions.store }

    static func gather(_ store: TimelineStore) async throws(StoreError) -> (TimelineStore.Statistics, [(StoreScope, [PositionSnapshotRow])]) {
        let statistics = try await store.statistics()
        var histories: [(StoreScope, [PositionSnapshotRow])] = []
        for scope in statistics.scopes { histories.append((scope, try await store.positions.history(scope: scope).map(PositionSnapshotRow.init))) }
        return (statistics, histories)
    }

    func run() async throws {
        let opened = try await storeOptions.open(create: false)
        var resolved = DefaultsResolver.fill(Value(.dictionary([:])), schema: ConfigurationSchema.embedded.document)
        if let config {
            _ = try ConfigurationInput.load(config, lenient: lenientOption.lenient).configuration
            resolved = ConfigurationLoader().read(contentsOf: URL(fileURLWithPath: config), displayName: config).resolved
        }
        let gathered: (TimelineStore.Statistics, [(StoreScope, [PositionSnapshotRow])])
        do {
            gathered = try await Self.gather(opened)
        } catch {
            throw CommandFailure(error)
        }
        let (statistics, histories) = gathered
        func ratio(_ value: Double?) -> String { value.map { String(format: "%.2f", $0) } ?? "-" }
        switch format {
        case .text:
            Console.out("store: \(store) (migrations \(statistics.migrations.joined(separator: ", ")))")
            Console.out("scopes: \(statistics.scopes.map { "\($0.account)/\($0.timeline)" }.joined(separator: ", "))")
            Console.out(
                "cache: \(statistics.cachedPosts) post\(statistics.cachedPosts == 1 ? "" : "s"), \(statistics.cachedBytes) bytes, oldest \(statistics.oldestCachedAt.map { Timestamp.format($0) } ?? "-"); hits \(statistics.timelineHits), misses \(statistics.timelineMisses), hit ratio \(ratio(statistics.hitRatio))"
            )
            Console.out("saved positions: \(statistics.snapshots); read posts: \(statistics.readPosts)")
            for (scope, rows) in histories {
                Console.out("")
                Console.out("history of \(scope.account)/\(scope.timeline):")
                for row in rows { Console.out("  " + row.line) }
            }
            Console.out("")
            Console.out("resolved configuration:")
            try Console.json(resolved)
        case .json:
            func number(_ value: Double?) -> Value { value.map { .real($0) } ?? .null }
            let oldest: Value = statistics.oldestCachedAt.map { .string(Timestamp.format($0)) } ?? .null
            let cache = Value.dictionary([
                ("entries", .integer(statistics.cachedPosts)), ("bytes", .integer(statistics.cachedBytes)), ("oldestEntry", oldest),
                ("hits", .integer(statistics.timelineHits)), ("misses", .integer(statistics.timelineMisses)),
                ("hitRatio", number(statistics.hitRatio)),
            ])
            var historyValues: [Value] = []
            for (scope, rows) in histories {
                historyValues.append(
                    .dictionary([
                        ("account", .string(scope.account)), ("timeline", .string(scope.timeline)),
                        ("positions", .array(rows.map(\.value))),
                    ]))
            }
            let value = Value.dictionary([
                ("store", .string(store)), ("migrations", .array(statistics.migrations.map(Value.string))), ("cache", cache),
                ("savedPositions", .integer(statistics.snapshots)), ("readPosts", .integer(statistics.readPosts)),
                ("history", .array(historyValues)), ("configuration", resolved),
            ])
            try Console.json(value)
        }
    }
}
