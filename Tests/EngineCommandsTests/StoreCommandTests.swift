import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineStore
import TimelineEngineTestSupport

@Suite("engine history, maintenance and restore --store", .timeLimit(.minutes(10)))
struct StoreCommandTests {
    static let config = "config/SocialFusionTimelineConfiguration.plist"

    func makeStore(in directory: URL) async throws -> String {
        let path = directory.appendingPathComponent("state.sqlite").path
        let store = try await TimelineStore(path: path)
        for (number, id) in ["1600586962619113472", "1600589425271926784"].enumerated() {
            try await store.positions.saveSnapshot(
                PositionSnapshot(
                    postId: id, viewportY: -40, contentOffset: 1824, index: 12, timelineCount: 40,
                    savedAt: Date(timeIntervalSince1970: 1_670_450_000 + Double(number))), scope: StoreScope())
        }
        try await store.positions.markRead(["a", "b", "c"], scope: StoreScope(), at: Date(timeIntervalSince1970: 1_000))
        return path
    }

    @Test("history prints the saved positions, newest first")
    func history() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try await makeStore(in: directory)
        let result = try await EngineProcess.run(["history", "--store", path])
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                2022-12-07T21:53:21Z  post 1600589425271926784 at index 12 of 40, viewportY -40 pt, offset 1824 pt
                2022-12-07T21:53:20Z  post 1600586962619113472 at index 12 of 40, viewportY -40 pt, offset 1824 pt

                """)
    }

    @Test("restore --store restores from the newest saved position")
    func restore() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try await makeStore(in: directory)
        let result = try await EngineProcess.run([
            "restore", "--config", Self.config, "--timeline", "Tests/Fixtures/restore/timeline.jsonl", "--store", path,
        ])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("post 1600589425271926784 at index 12, content offset 1824 pt, viewportY -40 pt\n"))
        let neither = try await EngineProcess.run(["restore", "--config", Self.config, "--timeline", "Tests/Fixtures/restore/timeline.jsonl"])
        #expect(neither.status == 2)
        #expect(neither.stderr.contains("Error: give either --position FILE or --store PATH"))
    }

    @Test("maintenance trims by the configured policies and says what it removed")
    func maintenance() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try await makeStore(in: directory)
        let configPath = directory.appendingPathComponent("c.json").path
        try #"{"PositionPersistence": {"MaxHistorySize": 1}, "TimelineCache": {"MaxReadPosts": 2}}"#.write(
            toFile: configPath, atomically: true, encoding: .utf8)
        let result = try await EngineProcess.run(["maintenance", "--store", path, "--config", configPath])
        #expect(result.status == 0)
        #expect(result.stdout == "removed 0 cached posts, 1 saved position, 1 read post id\n")
    }

    @Test("maintenance under memory pressure shrinks the caches to their floors")
    func memoryPressure() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try await makeStore(in: directory)
        let store = try await TimelineStore(path: path)
        let posts = (0..<30).map { Post(id: "p\($0)", createdAt: Date(timeIntervalSince1970: 1_670_000_000 - Double($0)), text: "post \($0)") }
        try await store.timelines.saveTimeline(posts, scope: StoreScope(), refreshedAt: Date())
        let configPath = directory.appendingPathComponent("c.json").path
        try #"{"TimelineCache": {"MemoryPressureFloor": 10}, "Performance": {"MemoryWarningThreshold": 0.8}}"#
            .write(toFile: configPath, atomically: true, encoding: .utf8)
        let relaxed = try await EngineProcess.run(["maintenance", "--store", path, "--config", configPath, "--memory-use", "0.5"])
        #expect(relaxed.status == 0)
        #expect(
            relaxed.stdout == """
                memory use 0.50 < MemoryWarningThreshold 0.80: regular bounds
                removed 0 cached posts, 0 saved positions, 0 read post ids

                """)
        let pressed = try await EngineProcess.run(["maintenance", "--store", path, "--config", configPath, "--memory-use", "0.93"])
        #expect(pressed.status == 0)
        #expect(
            pressed.stdout == """
                memory use 0.93 ≥ MemoryWarningThreshold 0.80: caches shrink to their floors
                removed 20 cached posts, 1 saved position, 0 read post ids

                """)
        #expect(try await store.timelines.timeline(scope: StoreScope())?.posts.count == 10)
        #expect(try await store.positions.history(scope: StoreScope()).map(\.postId) == ["1600589425271926784"])
        let bad = try await EngineProcess.run(["maintenance", "--store", path, "--config", configPath, "--memory-use", "93%"])
        #expect(bad.status == 2)
        #expect(
            bad.stderr == """
                Error: --memory-use takes a fraction from 0 to 1, or 'system'; got "93%"
                Usage: engine maintenance --store <store> [--config <config>] [--memory-use <memory-use>] [--lenient] [--verbose] [--quiet]
                  See 'engine maintenance --help' for more information.

                """)
        let negative = try await EngineProcess.run(["maintenance", "--store", path, "--memory-use", "-0.5"])
        #expect(negative.status == 2)
        #expect(negative.stderr.hasPrefix("Error: --memory-use takes a fraction from 0 to 1, or 'system'; got \"-0.5\"\n"))
    }

    @Test("debug-export prints the summary, history, cache statistics and resolved configuration")
    func debugExport() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try await makeStore(in: directory)
        let store = try await TimelineStore(path: path)
        try await store.timelines.saveTimeline(
            [Post(id: "x", createdAt: Date(timeIntervalSince1970: 0), text: "hello")], scope: StoreScope(),
            refreshedAt: Date(timeIntervalSince1970: 1_670_000_000))
        _ = try await store.timelines.timeline(scope: StoreScope())
        _ = try await store.timelines.timeline(scope: StoreScope())
        _ = try await store.timelines.timeline(scope: StoreScope(account: "nobody"))
        let text = try await EngineProcess.run(["debug-export", "--store", path])
        #expect(text.status == 0)
        let lines = text.stdout.components(separatedBy: "\n")
        #expect(
            lines[0]
                == "store: \(path) (migrations v1, v2-counters, v3-last-read, v4-sync, v5-heads, v6-gaps, v7-revision, v8-exact-times, v9-clocks-revision, v10-read-content, v11-head-reads)"
        )
        #expect(lines[1] == "scopes: default/home")
        #expect(lines[2] == "cache: 1 post, 54 bytes, oldest 2022-12-02T16:53:20Z; hits 2, misses 1, hit ratio 0.67")
        #expect(lines[3] == "saved positions: 2; read posts: 3")
        #expect(text.stdout.contains("resolved configuration:\n{\n  \"PositionPersistence\""))
        let json = try await EngineProcess.run(["debug-export", "--store", path, "--format", "json"])
        #expect(json.status == 0)
        #expect(json.stdout.contains("\"hitRatio\": 0.6666666666666666"))
    }

    @Test("a file that is not a store is reported, and left alone")
    func notAStore() async throws {
        let result = try await EngineProcess.run(["history", "--store", "config/SocialFusionTimelineConfiguration.plist"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "config/SocialFusionTimelineConfiguration.plist: error: not a SQLite database (it does not start with \"SQLite format 3\"); it is left as it is\n"
        )
    }
}
