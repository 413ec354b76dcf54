import Foundation
import Testing
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineRestoration
import TimelineEngineSessionFormat
import TimelineEngineSessionReplay
import TimelineEngineSyncModel

/// Two devices whose reading truly diverged, and the plain switches beside them, replayed end
/// to end: the merge policy must ask where the reading diverged and land on the other device's
/// post where it did not.
@Suite("Divergences replayed", .timeLimit(.minutes(10)))
struct DivergenceReplayTests {
    static let start = Script.start
    /// Sixty posts of 100 pt, q0 the newest: the anchor at offset 100·k is qk.
    static let posts = (0..<60).map {
        Post(id: "q\($0)", createdAt: start.addingTimeInterval(Double(-60 * $0)), text: "post number \($0)", height: 100)
    }
    static let header = SessionHeader(
        id: "diverged", device: "phone", timeline: "home", viewport: .init(width: 200, height: 300), startedAt: start,
        version: SessionHeader.multiDeviceVersion)

    /// Events built in order of time, in seconds from `start`.
    struct Events {
        var list: [SessionEvent] = [SessionEvent(at: DivergenceReplayTests.start, .timeline(reason: .initial, posts: DivergenceReplayTests.posts))]

        mutating func at(_ seconds: Double, _ kind: SessionEvent.Kind, on device: String? = nil) {
            list.append(SessionEvent(at: DivergenceReplayTests.start.addingTimeInterval(seconds), kind, device: device))
        }

        /// The laptop was last opened at q2, and its write reaches no one until a `sync` says so.
        mutating func laptopLastOpenedAtQ2() {
            at(1, .lifecycle(.launch), on: "laptop")
            at(2, .scroll(offset: 200), on: "laptop")
            at(4, .lifecycle(.background), on: "laptop")
        }

        /// The reader reads from post `from` to post `to` on `device`, a post every 6 s from
        /// `seconds` on; returns the time of the last scroll.
        @discardableResult
        mutating func read(on device: String?, from: Int, to: Int, at seconds: Double) -> Double {
            var time = seconds
            for post in stride(from: from, through: to, by: from <= to ? 1 : -1) {
                at(time, .scroll(offset: Double(post * 100)), on: device)
                time += 6
            }
            return time - 6
        }
    }

    static func replay(_ events: Events, policy: String) throws -> [RestorePoint] {
        var settings = ReplaySettings()
        let node = StrategyNode(try PipelineSpec.parse(policy))
        settings.mergePolicy = ComponentSpec(name: node.name, parameters: node.parameters)
        var replayer = try SessionReplayer(header: header, settings: settings)
        var points: [RestorePoint] = []
        for (line, event) in events.list.enumerated() {
            if let point = replayer.apply(event, line: line + 2) { points.append(point) }
        }
        return points
    }

    @Test(
        "a write delivered six minutes late is no wrong clock: both devices read on after it, and the restore asks where to continue"
    )
    func lateDeliveryAsks() throws {
        var events = Events()
        events.laptopLastOpenedAtQ2()
        // The phone reads q0 to q12 and goes to the background: its push reaches the laptop
        // 400 s late, so the laptop learns only that the phone is at most ~7 minutes behind.
        events.at(10, .lifecycle(.launch))
        let end = events.read(on: nil, from: 0, to: 12, at: 11)
        events.at(end + 7, .lifecycle(.background))
        events.at(end + 407, .sync(from: "phone", to: "laptop"))
        // Meanwhile the phone reads on, q13 to q30, and goes to the background; it pushes nothing.
        events.at(100, .lifecycle(.foreground))
        let phoneEnd = events.read(on: nil, from: 13, to: 30, at: 106)
        events.at(phoneEnd + 7, .lifecycle(.background))
        // After the late delivery the reader opens the laptop, finds q12 and reads to q22.
        events.at(end + 417, .lifecycle(.foreground), on: "laptop")
        let laptopEnd = events.read(on: "laptop", from: 12, to: 22, at: end + 418)
        events.at(laptopEnd + 7, .lifecycle(.background), on: "laptop")
        events.at(laptopEnd + 10, .sync(from: "laptop", to: "phone"))
        events.at(laptopEnd + 11, .sync(from: "phone", to: "laptop"))
        events.at(laptopEnd + 100, .lifecycle(.foreground))
        events.at(laptopEnd + 101, .restore(tag: "diverged", expected: .init(postId: "q22", diverged: true)))
        let point = try #require(try Self.replay(events, policy: "CausalFurthest").last)
        // The phone's q30 and the laptop's later q22 are both offered.
        #expect(Set(point.offer.map(\.postId)) == ["q30", "q22"])
    }

    @Test("a one-sided clock bound shows a wrong clock only on its own side")
    func oneSidedBound() {
        func lead(lower: Int64?, upper: Int64?) -> Int64? {
            let a = PositionRecord.example("phone", 2, at: 1_000_000, "p1", clocks: upper.map { [("laptop", 0 - $0)] } ?? [])
            let b = PositionRecord.example("laptop", 2, at: 1_000_000, "p2", clocks: lower.map { [("phone", $0)] } ?? [])
            return ClockOffsets.wrongClockLead(of: a, over: b)
        }
        // A late delivery: the phone is at least 14 minutes behind... or anything later: no wrong clock.
        #expect(lead(lower: -840_000, upper: nil) == nil)
        #expect(lead(lower: nil, upper: 840_000) == nil)
        // A bound that shows the clock wrong on its own side.
        #expect(lead(lower: 3_600_000, upper: nil) == 3_600_000)
        #expect(lead(lower: nil, upper: -3_600_000) == -3_600_000)
        // Within five minutes either way: a delivery's delay.
        #expect(lead(lower: 299_000, upper: nil) == nil)
        #expect(lead(lower: nil, upper: -299_000) == nil)
    }

    @Test("MarkerArrival on a plain switch lands on the other device's post, though the laptop published its own head again")
    func markerArrivalPlainSwitch() throws {
        var events = Events()
        events.laptopLastOpenedAtQ2()
        // The phone reads to q30 and pushes.
        events.at(10, .lifecycle(.launch))
        let end = events.read(on: nil, from: 0, to: 30, at: 11)
        events.at(end + 5, .lifecycle(.background))
        events.at(end + 8, .sync(from: "phone", to: "laptop"))
        events.at(end + 60, .lifecycle(.foreground), on: "laptop")
        events.at(end + 61, .restore(tag: "device-switch", expected: .init(postId: "q30")), on: "laptop")
        let point = try #require(try Self.replay(events, policy: "MarkerArrival").last)
        #expect(point.input?.postId == "q30")
        #expect(point.inputSource == .synced)
    }
}
