import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineReachModel
import TimelineEngineRestoration
import TimelineEngineSimulatedServer
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// The conformance suite of reach strategies: every registered one passes its own scenarios
/// (outcome, request budget, the post in the merged cache when reached), the same way twice,
/// and on every feed shape (Bluesky with each kind of cursor) stays within `ReachRun.maximumRequests`, merges pages without
/// duplicates, and keeps a gap wherever what it loaded does not meet the cache. A new reach
/// strategy gets all of this without writing a test.
@Suite("Reach strategy conformance", .timeLimit(.minutes(10)))
struct ReachConformanceTests {
    static let types = BuiltInStrategies.registry.types(of: .reach)

    static func strategy(_ name: String, parameters: Value.Dictionary = [:]) throws -> any ReachStrategy {
        guard
            let strategy = try BuiltInStrategies.registry.build(StrategyNode(name: name, parameters: parameters), kind: .reach).as(
                (any ReachStrategy).self)
        else {
            throw StrategyError("\(name) is not a reach strategy")
        }
        return strategy
    }

    @Test("the registry has the reach strategies, each with scenarios")
    func registered() {
        #expect(Self.types.map(\.name) == ["CacheOnly", "OnePage", "PostWindow", "TopPages"])
        for type in Self.types { #expect(!type.examples(of: ReachScenario.self).isEmpty, "\(type.name)") }
    }

    @Test("every named scenario ends as expected within its requests, the same way twice", arguments: types.map(\.name))
    func scenarios(_ name: String) throws {
        let type = try #require(BuiltInStrategies.registry[name])
        for scenario in type.examples(of: ReachScenario.self) {
            let strategy = try Self.strategy(name, parameters: scenario.parameters)
            let result = scenario.run(strategy)
            #expect(result.run.outcome == scenario.expected, "\(name): \(scenario.name)")
            #expect(result.run.requests <= scenario.maxRequests, "\(name): \(scenario.name): \(result.run.requests) requests")
            #expect(result.posts.contains { $0.id == "s\(scenario.target)" } == (scenario.expected == .reached), "\(name): \(scenario.name)")
            #expect(Set(result.posts.map(\.id)).count == result.posts.count, "\(name): \(scenario.name): duplicates")
            let again = scenario.run(strategy)
            #expect(again.run.exchanges == result.run.exchanges, "\(name): \(scenario.name): not deterministic")
        }
    }

    @Test(
        "on every feed shape a strategy stops, merges without duplicates, and leaves a gap only where posts are missing",
        arguments: types.map(\.name))
    func common(_ name: String) throws {
        let strategy = try Self.strategy(name)
        let shapes: [(ReachScenario.API, FeedCursors)] = [(.mastodon, .timeKeyed)] + FeedCursors.allCases.map { (.bluesky, $0) }
        for (api, cursors) in shapes {
            for (feedSize, target, deleted) in [(1_000, 400, false), (1_000, 999, false), (50, 45, false), (5_000, 4_000, true), (300, 41, true)] {
                let scenario = ReachScenario(
                    name: "common", api: api, feedSize: feedSize, target: target, deleted: deleted, cursors: cursors,
                    expected: .reached, maxRequests: ReachRun.maximumRequests)
                let result = scenario.run(strategy)
                let label = "\(name) on \(api) (\(cursors.rawValue) cursors) \(feedSize) posts, target \(target)\(deleted ? " deleted" : "")"
                #expect(result.run.requests <= ReachRun.maximumRequests, "\(label)")
                #expect(Set(result.posts.map(\.id)).count == result.posts.count, "\(label): duplicates")
                // The merged cache is the feed's order, with a gap exactly where posts are missing.
                let feed = scenario.feed.posts.map(\.id)
                let place = Dictionary(uniqueKeysWithValues: feed.enumerated().map { ($1, $0) })
                let positions = result.posts.map { place[$0.id] ?? -1 }
                #expect(positions == positions.sorted() && !positions.contains(-1), "\(label): out of order")
                let missing = zip(positions, positions.dropFirst()).filter { $1 != $0 + 1 }.map { feed[$0.0] }
                #expect(result.gaps.map(\.above) == missing, "\(label): gaps")
            }
        }
    }
}
