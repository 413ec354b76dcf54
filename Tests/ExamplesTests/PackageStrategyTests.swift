import Foundation
import Testing
import TimelineEngineTestSupport

/// `Examples/PackageStrategy`: an app's own strategy in its own package, depending on
/// TimelineEngine by path. It is built here and run as an app would run it, with no change to
/// the engine.
@Suite("A strategy from another package", .serialized, .timeLimit(.minutes(30)))
struct PackageStrategyTests {
    static func run(_ arguments: [String]) async throws -> ChildProcess.Result {
        try await ChildProcess.run(
            try await ExampleBuilds.build("PackageStrategy").appendingPathComponent("next-unread-demo"), arguments,
            in: Fixtures.repository)
    }

    @Test("its registry's schema validates a plist that configures the strategy, with lines for a bad parameter")
    func validate() async throws {
        let good = try await Self.run(["validate", "Tests/Fixtures/examples/next-unread.plist"])
        #expect(good.status == 0)
        #expect(good.stdout == "Tests/Fixtures/examples/next-unread.plist: OK\n")
        let bad = try await Self.run(["validate", "Tests/Fixtures/examples/next-unread-bad.plist"])
        #expect(bad.status == 1)
        #expect(
            bad.stderr == """
                Tests/Fixtures/examples/next-unread-bad.plist:9:56: error: Restoration.Pipeline[1].MaxGapp: unknown key "MaxGapp"; did you mean "MaxGap"? Valid keys: Strategy, MaxGap, Confidence, Weight
                Tests/Fixtures/examples/next-unread-bad.plist:9:117: error: Restoration.Pipeline[1].Confidence: 1.5 is greater than the maximum 1 (allowed: ≥ 0 and ≤ 1)

                """)
    }

    @Test("it restores with the strategy, configured with its parameters")
    func restore() async throws {
        let result = try await Self.run([
            "restore", "Tests/Fixtures/examples/next-unread.plist", "Tests/Fixtures/restore/timeline.jsonl",
            "Tests/Fixtures/restore/position-author.json",
        ])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                ExactMatch > NextUnread(MaxGap: 600, Confidence: 0.65) > Fallback(Mode: NearestContent) | ViewportAnchor
                1600571630564306944 by NextUnread, confidence 0.65: post 1600571630564306944 is the newest post older than the saved one, by 112 s

                """)
    }

    /// SwiftPM refuses a package graph where two packages declare a target of the same name
    /// ("target names need to be unique across the package graph"), and `Examples/Neighbour`
    /// declares `JSONSchema`, `TestSupport`, `ValueTree` and `HTTP`, which TimelineEngine's
    /// targets were once named: an app with both builds only because every target of TimelineEngine
    /// is named `TimelineEngine…`.
    @Test("an app builds with TimelineEngine beside a package declaring JSONSchema, TestSupport, ValueTree and HTTP targets")
    func besideANeighbour() async throws {
        let result = try await ChildProcess.run(
            try await ExampleBuilds.build("PackageStrategy").appendingPathComponent("beside-a-neighbour"),
            ["config/SocialFusionTimelineConfiguration.plist"], in: Fixtures.repository)
        #expect(result.status == 0, "\(result.stderr)")
        // One built-in per folder under Strategies/.
        let strategies = try FileManager.default.contentsOfDirectory(atPath: Fixtures.repositoryURL("Strategies").path)
            .filter { !$0.contains(".") }.count
        #expect(
            result.stdout == """
                the neighbour's JSONSchema, TestSupport, ValueTree, HTTP beside TimelineEngine's \(strategies) strategies
                config/SocialFusionTimelineConfiguration.plist: OK

                """)
    }
}
