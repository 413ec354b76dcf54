import Foundation
import Testing
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineRestoration
import TimelineEngineSessionComparison
import TimelineEngineSessionFormat
import TimelineEngineSessionReplay
import TimelineEngineSessionSimulation
import TimelineEngineTestSupport
import TimelineEngineValueTree

/// Sessions where each device keeps its own cache (format version 3): the replay's caches and
/// reach, the bundled sessions, and the quality bars of reaching a post across a gap, on the
/// engine's own simulated sessions and on sessions made by an independent reading model.
@Suite("Devices with caches of their own", .ownThread, .timeLimit(.minutes(30)))
struct CachedDevicesTests {
    static let start = Date(timeIntervalSince1970: 1_795_478_400)

    /// Post `n` (1 the oldest), 100 points high, written n minutes after the start.
    static func post(_ n: Int) -> Post {
        Post(id: "\(n)", createdAt: start.addingTimeInterval(Double(60 * n)), author: "a\(n % 5)", text: "post \(n)", height: 100)
    }

    @Test("replay: a laptop that fetched a head page yesterday reaches the phone's post across the gap, in two requests")
    func replay() {
        let header = SessionHeader(
            id: "caches", device: "phone", timeline: "home", viewport: .init(width: 390, height: 800),
            startedAt: Self.start, version: SessionHeader.cachesVersion)
        var settings = ReplaySettings(configuration: .defaults)
        settings.mergePolicy = ComponentSpec(name: "CausalFurthest")
        var replayer = try! SessionReplayer(header: header, settings: settings)
        var time = Self.start.addingTimeInterval(86_400)
        func at(_ seconds: Double) -> Date {
            time = time.addingTimeInterval(seconds)
            return time
        }
        _ = replayer.apply(SessionEvent(at: at(0), .lifecycle(.launch)))
        _ = replayer.apply(SessionEvent(at: at(0), .timeline(reason: .initial, posts: (1...600).reversed().map(Self.post))))
        _ = replayer.apply(SessionEvent(at: at(1), .fetch(limit: 40), device: "laptop"))
        #expect(replayer.caches["laptop"]?.posts.count == 40)
        _ = replayer.apply(SessionEvent(at: at(1), .insert(index: 0, posts: (601...1000).reversed().map(Self.post))))
        // The phone reads down to post 800: 200 posts of 100 points below the top.
        _ = replayer.apply(SessionEvent(at: at(5), .scroll(offset: 20_000)))
        _ = replayer.apply(SessionEvent(at: at(5), .lifecycle(.background)))
        _ = replayer.apply(SessionEvent(at: at(3600), .sync(from: "phone", to: "laptop")))
        _ = replayer.apply(SessionEvent(at: at(1), .fetch(limit: 40), device: "laptop"))
        let point = replayer.apply(SessionEvent(at: at(1), .restore(tag: "gap", expected: .init(postId: "800")), device: "laptop"))
        #expect(point?.inputSource == .synced)
        #expect(point?.input?.postId == "800")
        #expect(point?.reach == RestorePoint.Reach(outcome: .reached, requests: 2, bytes: point?.reach?.bytes ?? 0))
        #expect(point?.index.index(of: "800") == 40)
        #expect(point?.serverIndex?.count == 1000)
        let cache = replayer.caches["laptop"]
        #expect(
            cache.map { TimelineGap.gaps(in: $0.posts, below: $0.gapsBelow) }
                == [TimelineGap(above: "961", below: "800"), TimelineGap(above: "760", below: "600")])
    }

    @Test("the bundled sessions are what the documented command writes")
    func bundled() throws {
        let simulator = SessionSimulator(
            corpus: SimulationTests.corpus,
            options: SimulationOptions(sessions: 12, seed: 2026, feed: .chronological, devices: true, caches: true))
        for number in 1...12 {
            let bundled = try String(
                contentsOf: Fixtures.repositoryURL("sessions/devices-caches/session-\(String(format: "%04d", number)).jsonl"),
                encoding: .utf8)
            #expect(SessionWriter.text(of: simulator.session(number: number)) == bundled, "session \(number)")
        }
    }

    /// The configured pipeline's report, with the configured reach strategy or `reach`: replayed
    /// by two workers on threads of their own (`ParallelWork`), never on a cooperative one.
    static func report(_ files: [String], reach: String? = nil, parameters: Value.Dictionary = [:]) async throws -> PipelineResults {
        let candidates = try ComparisonCandidate.candidates(configuration: .defaults, specs: [])
        var settings = ReplaySettings(configuration: .defaults)
        if let reach { settings.reach = ComponentSpec(name: reach, parameters: parameters) }
        let runner = ComparisonRunner(candidates: Array(candidates.prefix(1)), settings: settings, jobs: 2)
        let report = await runner.run(files: files)
        return try #require(report.pipelines.first)
    }

    /// Writes `count` simulated sessions with caches on `api` into a temporary folder.
    static func simulated(_ count: Int, seed: UInt64, api: SessionHeader.API, cursors: SessionHeader.Cursors = .timeKeyed) throws -> (
        URL, [String]
    ) {
        let directory = try Fixtures.temporaryDirectory()
        let simulator = SessionSimulator(
            corpus: SimulationTests.corpus,
            options: SimulationOptions(
                sessions: count, seed: seed, feed: .chronological, devices: true, caches: true, api: api, cursors: cursors))
        var files: [String] = []
        for number in 1...count {
            let url = directory.appendingPathComponent("session-\(number).jsonl")
            try Data(SessionWriter.text(of: simulator.session(number: number)).utf8).write(to: url)
            files.append(url.path)
        }
        return (directory, files)
    }

    @Test(
        "after a switch to a device that lacks the post, the configured pipeline lands on it; peers do worse",
        arguments: ["bundled", "bluesky", "independent"])
    func qualityBars(_ set: String) async throws {
        var files: [String]
        var cleanup: URL?
        switch set {
        case "bundled": files = try SessionFiles.expand([Fixtures.repositoryURL("sessions/devices-caches").path])
        case "independent": files = try SessionFiles.expand([Fixtures.url("independent-sessions").path])
        default:
            let (directory, written) = try Self.simulated(24, seed: 8128, api: .bluesky)
            (files, cleanup) = (written, directory)
        }
        defer { if let cleanup { try? FileManager.default.removeItem(at: cleanup) } }
        let configured = try await Self.report(files).all.summary
        #expect(configured.reachPoints >= 10, "\(set): \(configured.reachPoints) reaches")
        #expect(try #require(configured.reachExact) >= 0.95, "\(set)")
        #expect(try #require(configured.reachWithin1) >= 0.98, "\(set)")
        #expect(try #require(configured.reachRequestsP50) <= 2, "\(set)")
        for peer in ["OnePage", "TopPages", "CacheOnly"] {
            let other = try await Self.report(files, reach: peer).all.summary
            #expect((other.reachExact ?? 0) < configured.reachExact!, "\(set): PostWindow vs \(peer)")
            #expect((other.exact ?? 0) < configured.exact!, "\(set): PostWindow vs \(peer), all points")
        }
    }

    /// The independent reading model's sessions as a Bluesky server would serve them: the same
    /// lines, the header's `api` changed.
    static func independentOnBluesky() throws -> (URL, [String]) {
        let directory = try Fixtures.temporaryDirectory()
        var files: [String] = []
        for file in try SessionFiles.expand([Fixtures.url("independent-sessions").path]) {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            let url = directory.appendingPathComponent(URL(fileURLWithPath: file).lastPathComponent)
            try Data(text.replacingOccurrences(of: #""api":"mastodon"}"#, with: #""api":"bluesky"}"#).utf8).write(to: url)
            files.append(url.path)
        }
        return (directory, files)
    }

    @Test(
        "on Bluesky, the page at the post's time: at most 3 requests at p90 and a third of the bytes of paging from the top; refused cursors cost what paging from the top does",
        arguments: ["simulated", "independent"])
    func blueskyByTime(_ set: String) async throws {
        let (directory, files) = set == "independent" ? try Self.independentOnBluesky() : try Self.simulated(24, seed: 4242, api: .bluesky)
        defer { try? FileManager.default.removeItem(at: directory) }
        let byTimeAll = try await Self.report(files).all
        let fromTopAll = try await Self.report(files, reach: "PostWindow", parameters: Self.timeCursorsOff).all
        let (byTime, fromTop) = (byTimeAll.summary, fromTopAll.summary)
        #expect(byTime.reachPoints >= 10, "\(set): \(byTime.reachPoints) reaches")
        #expect(try #require(byTime.reachRequestsP90) <= 3, "\(set)")
        #expect(try #require(byTime.reachKilobytesMean) * 3 <= (try #require(fromTop.reachKilobytesMean)), "\(set)")
        #expect(try #require(byTime.reachExact) >= (try #require(fromTop.reachExact)), "\(set)")
        #expect(byTime.exact! >= fromTop.exact!, "\(set)")
        #expect(byTime.reachMisses == 0, "\(set)")
        guard set == "simulated" else { return }
        // A server whose cursors say nothing of time: no page is asked by time, and every figure
        // is paging from the top's.
        let (opaqueDirectory, opaque) = try Self.simulated(24, seed: 4242, api: .bluesky, cursors: .opaque)
        defer { try? FileManager.default.removeItem(at: opaqueDirectory) }
        let refused = try await Self.report(opaque).all
        let refusedFromTop = try await Self.report(opaque, reach: "PostWindow", parameters: Self.timeCursorsOff).all
        #expect(refused.reachRequestCounts == refusedFromTop.reachRequestCounts)
        #expect(refused.reachBytes == refusedFromTop.reachBytes)
        #expect(refused.exact == refusedFromTop.exact)
        #expect(refused.reachRequests == fromTopAll.reachRequests)
        // One that takes only its own: at most one refused request more per reach, then the same
        // pages.
        let (issuedDirectory, issued) = try Self.simulated(24, seed: 4242, api: .bluesky, cursors: .issuedOnly)
        defer { try? FileManager.default.removeItem(at: issuedDirectory) }
        let signed = try await Self.report(issued).all
        #expect(signed.reachRequests > fromTopAll.reachRequests)
        #expect(signed.reachRequests <= fromTopAll.reachRequests + fromTopAll.reachPoints)
        #expect(signed.reachPoints == fromTopAll.reachPoints)
        #expect(signed.exact == fromTopAll.exact)
    }

    static let timeCursorsOff: Value.Dictionary = ["TimeCursors": Value.Member(value: .bool(false))]
}
