import Foundation
import Testing
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEnginePositionTracking
import TimelineEngineRestoration
import TimelineEngineSessionComparison
import TimelineEngineSessionFormat
import TimelineEngineSessionReplay
import TimelineEngineSyncModel

/// Sessions with devices (format version 2): each device has its own tracker, saves become
/// register writes, and `sync` events carry them between devices under the merge policy.
@Suite("Multi-device replay", .timeLimit(.minutes(10)))
struct MultiDeviceReplayTests {
    static let start = Script.start
    static let header = SessionHeader(
        id: "two", device: "phone", timeline: "home", viewport: .init(width: 200, height: 300), startedAt: start,
        version: SessionHeader.multiDeviceVersion)

    /// Replay settings with the merge policy `policy`, in spec notation (nil: sync off).
    static func settings(policy: String?) -> ReplaySettings {
        var settings = ReplaySettings()
        settings.mergePolicy = policy.map { text in
            let node = StrategyNode(try! PipelineSpec.parse(text))
            return ComponentSpec(name: node.name, parameters: node.parameters)
        }
        return settings
    }

    /// The phone reads to `phoneOffset` (580: p6) and goes to the background; later the laptop
    /// opens, and with `staleLaptopOffset` it first shows an older position it had, before
    /// hearing from the phone. Posts are newest first: p1 is newer than p6, so further along.
    static func events(sync: Bool, phoneOffset: Double = 580, staleLaptopOffset: Double? = nil) -> [SessionEvent] {
        var events: [SessionEvent] = [
            SessionEvent(at: start, .timeline(reason: .initial, posts: Script.posts)),
            SessionEvent(at: start.addingTimeInterval(1), .lifecycle(.launch)),
            SessionEvent(at: start.addingTimeInterval(2), .scroll(offset: phoneOffset)),
            SessionEvent(at: start.addingTimeInterval(10), .lifecycle(.background)),
        ]
        if let staleLaptopOffset {
            events += [
                SessionEvent(at: start.addingTimeInterval(20), .lifecycle(.launch), device: "laptop"),
                SessionEvent(at: start.addingTimeInterval(21), .scroll(offset: staleLaptopOffset), device: "laptop"),
                SessionEvent(at: start.addingTimeInterval(30), .lifecycle(.background), device: "laptop"),
            ]
        }
        if sync { events.append(SessionEvent(at: start.addingTimeInterval(60), .sync(from: "phone", to: "laptop"))) }
        events.append(SessionEvent(at: start.addingTimeInterval(61), .restore(tag: "device-switch", expected: .init(postId: "p6")), device: "laptop"))
        return events
    }

    static func restorePoint(_ events: [SessionEvent], policy: String?) -> RestorePoint? {
        var replayer = try! SessionReplayer(header: header, settings: settings(policy: policy))
        var point: RestorePoint?
        for event in events { point = replayer.apply(event) ?? point }
        return point
    }

    @Test(
        "a silent restore followed by a background with no scroll saves the restored place, as an app on the façade does: the next device is not taken back"
    )
    func restoredThenPutDown() throws {
        // 20 posts of 100 pt; the laptop reads to p2, the phone (having heard it) to p15. A day
        // later, with 10 new posts above, the laptop comes back (its live anchor long expired),
        // restores to the phone's p15 and is put down without a scroll; then the phone opens.
        let posts = (0..<20).map { Post(id: "p\($0)", createdAt: Self.start.addingTimeInterval(Double(-60 * $0)), text: "post \($0)", height: 100) }
        let new = (0..<10).map {
            Post(id: "n\($0)", createdAt: Self.start.addingTimeInterval(80_000 - Double(60 * $0)), text: "new post \($0)", height: 100)
        }
        func at(_ seconds: Double) -> Date { Self.start.addingTimeInterval(seconds) }
        var events: [SessionEvent] = [
            SessionEvent(at: at(0), .timeline(reason: .initial, posts: posts)),
            SessionEvent(at: at(1), .lifecycle(.launch), device: "laptop"),
            SessionEvent(at: at(2), .scroll(offset: 200), device: "laptop"),
            SessionEvent(at: at(60), .lifecycle(.background), device: "laptop"),
            SessionEvent(at: at(61), .sync(from: "laptop", to: "phone")),
            SessionEvent(at: at(100), .lifecycle(.launch)),
        ]
        events += stride(from: 300.0, through: 1_500, by: 300).enumerated().map {
            SessionEvent(at: at(110 + Double($0.offset) * 10), .scroll(offset: $0.element))
        }
        events += [
            SessionEvent(at: at(400), .lifecycle(.background)),
            SessionEvent(at: at(401), .sync(from: "phone", to: "laptop")),
            SessionEvent(at: at(80_000), .insert(index: 0, posts: new)),
            SessionEvent(at: at(86_400), .lifecycle(.foreground), device: "laptop"),
            SessionEvent(at: at(86_401), .restore(tag: "device-switch", expected: .init(postId: "p15")), device: "laptop"),
            SessionEvent(at: at(86_430), .lifecycle(.background), device: "laptop"),
            SessionEvent(at: at(86_431), .sync(from: "laptop", to: "phone")),
            SessionEvent(at: at(86_500), .lifecycle(.launch)),
            SessionEvent(at: at(86_501), .restore(tag: "device-switch", expected: .init(postId: "p15"))),
        ]
        let candidates = try ComparisonCandidate.candidates(configuration: .defaults, specs: ["ExactMatch > Fallback"])
        let runner = ComparisonRunner(candidates: candidates, settings: Self.settings(policy: "CausalFurthest"), jobs: 1)
        var report = runner.emptyReport()
        let text = SessionWriter.text(of: RecordedSession(header: Self.header, events: events))
        var reader = try SessionReader(data: Data(text.utf8), name: "restored-then-put-down")
        #expect(runner.evaluate(&reader, into: &report).isEmpty)
        let scored = report.pipelines[0].all
        #expect(scored.restorePoints == 2)
        // Before, the laptop's background saved its last scroll's offset, now over n2, and the
        // phone was taken there: 23 posts back.
        #expect(scored.exact == 2)
        #expect(scored.backJumps == 0)
    }

    @Test("a position synced from the phone is the laptop's input at its restore")
    func synced() throws {
        let point = try #require(Self.restorePoint(Self.events(sync: true), policy: "CausalFurthest"))
        #expect(point.inputSource == .synced)
        #expect(point.input?.postId == "p6")
    }

    @Test("without the delivery, or with sync off, the laptop has nothing from the phone")
    func notDelivered() throws {
        #expect(Self.restorePoint(Self.events(sync: false), policy: "FurthestRead")?.inputSource == RestorePoint.InputSource.none)
        #expect(Self.restorePoint(Self.events(sync: true), policy: nil)?.inputSource == RestorePoint.InputSource.none)
    }

    @Test(
        "a laptop glanced at an older position before hearing from the phone: CausalFurthest and FurthestRead take it to the phone's, LastWriterWins leaves it there"
    )
    func policies() throws {
        // The phone reads for 45 s, from p6 up to p1; the laptop, stale, opens at p6 and saves
        // it a second later, before it hears from the phone.
        let events: [SessionEvent] = [
            SessionEvent(at: Self.start, .timeline(reason: .initial, posts: Script.posts)),
            SessionEvent(at: Self.start.addingTimeInterval(1), .lifecycle(.launch)),
            SessionEvent(at: Self.start.addingTimeInterval(2), .scroll(offset: 580)),
            SessionEvent(at: Self.start.addingTimeInterval(45), .scroll(offset: 100)),
            SessionEvent(at: Self.start.addingTimeInterval(50), .lifecycle(.background)),
            SessionEvent(at: Self.start.addingTimeInterval(60), .lifecycle(.launch), device: "laptop"),
            SessionEvent(at: Self.start.addingTimeInterval(61), .scroll(offset: 580), device: "laptop"),
            SessionEvent(at: Self.start.addingTimeInterval(70), .lifecycle(.background), device: "laptop"),
            SessionEvent(at: Self.start.addingTimeInterval(100), .sync(from: "phone", to: "laptop")),
            SessionEvent(at: Self.start.addingTimeInterval(101), .restore(tag: "stale-device", expected: .init(postId: "p1")), device: "laptop"),
        ]
        for policy in ["CausalFurthest", "FurthestRead(Direction: Newer)"] {
            let further = try #require(Self.restorePoint(events, policy: policy))
            #expect(further.input?.postId == "p1", "\(policy)")
            #expect(further.inputSource == .synced, "\(policy)")
        }
        let latest = try #require(Self.restorePoint(events, policy: "LastWriterWins"))
        #expect(latest.input?.postId == "p6")
        #expect(latest.inputSource == .savedSnapshot)
        // The laptop's write was a glance: a second after it opened, no post moved; the
        // phone's last, 44 s and 5 posts into its visit, was reading.
        var replayer = try SessionReplayer(header: Self.header, settings: Self.settings(policy: "CausalFurthest"))
        for event in events { _ = replayer.apply(event) }
        let heads = replayer.replicas["laptop"]?.state.heads(of: RegisterKey(account: "default", timeline: "home")) ?? []
        #expect(heads.map(\.visit) == [PositionRecord.Visit(seconds: 1, posts: 0), PositionRecord.Visit(seconds: 44, posts: 5)])
    }

    @Test("devices and sync events are written and read back; a version-2 header reads")
    func format() throws {
        let events = Self.events(sync: true)
        var text = SessionWriter.line(for: Self.header)
        for event in events { text += SessionWriter.line(for: event) }
        var reader = try SessionReader(data: Data(text.utf8), name: "two.jsonl")
        var read: [SessionEvent] = []
        while let event = reader.next() { read.append(event) }
        #expect(read == events)
        #expect(reader.takeWarnings().isEmpty)
        let bad =
            SessionWriter.line(for: Self.header) + #"{"type":"sync","at":"2026-01-01T10:00:00Z","from":"phone"}"# + "\n"
            + #"{"type":"scroll","at":"2026-01-01T10:00:01Z","offset":1,"device":""}"# + "\n"
        var badReader = try SessionReader(data: Data(bad.utf8), name: "bad.jsonl")
        while badReader.next() != nil {}
        #expect(
            badReader.takeWarnings().map(\.description) == [
                #"bad.jsonl:2: warning: a sync event needs "to"; the line is skipped"#,
                #"bad.jsonl:3:66: warning: "device" must not be empty; the line is skipped"#,
            ])
    }

    static func replay(_ events: [SessionEvent], policy: String?, header: SessionHeader = header) -> (SessionReplayer, [RestorePoint]) {
        var replayer = try! SessionReplayer(header: header, settings: settings(policy: policy))
        var points: [RestorePoint] = []
        for event in events { if let point = replayer.apply(event) { points.append(point) } }
        return (replayer, points)
    }

    /// The laptop reads to p6 and goes to the background; its delivery is late, and the phone
    /// reads on to p7 meanwhile; then both deliveries arrive and the laptop opens again.
    static func concurrentReading() -> [SessionEvent] {
        [
            SessionEvent(at: start, .timeline(reason: .initial, posts: Script.posts)),
            SessionEvent(at: start.addingTimeInterval(1), .lifecycle(.launch), device: "laptop"),
            SessionEvent(at: start.addingTimeInterval(2), .scroll(offset: 580), device: "laptop"),
            SessionEvent(at: start.addingTimeInterval(10), .lifecycle(.background), device: "laptop"),
            SessionEvent(at: start.addingTimeInterval(60), .lifecycle(.launch)),
            SessionEvent(at: start.addingTimeInterval(61), .scroll(offset: 700)),
            SessionEvent(at: start.addingTimeInterval(70), .lifecycle(.background)),
            SessionEvent(at: start.addingTimeInterval(80), .sync(from: "laptop", to: "phone")),
            SessionEvent(at: start.addingTimeInterval(81), .sync(from: "phone", to: "laptop")),
            SessionEvent(at: start.addingTimeInterval(90), .lifecycle(.launch), device: "laptop"),
            SessionEvent(at: start.addingTimeInterval(91), .restore(tag: "clock-fast", expected: .init(postId: "p7")), device: "laptop"),
        ]
    }

    @Test("a laptop clock an hour fast wins over a later write it was concurrent with under LastWriterWins, never under CausalFurthest")
    func clockSkew() throws {
        let events = Self.concurrentReading()
        let (_, right) = Self.replay(events, policy: "LastWriterWins")
        #expect(right.first?.inputSource == .synced)
        #expect(right.first?.input?.postId == "p7")
        var skewed = Self.header
        skewed.clockSkew = ["laptop": 3600]
        let (replayer, wrong) = Self.replay(events, policy: "LastWriterWins", header: skewed)
        #expect(wrong.first?.inputSource == .savedSnapshot)
        #expect(wrong.first?.input?.postId == "p6")
        // The laptop's write carries its own clock, for display too.
        let laptopWrite = try #require(
            replayer.replicas["phone"]?.state.heads(of: RegisterKey(account: "default", timeline: "home")).first { $0.device == "laptop" })
        #expect(laptopWrite.savedAt == Self.start.addingTimeInterval(2 + 3600))
        // The phone read on past the laptop's place (p7 is older, further down): the furthest of
        // the two concurrent writes wins, whatever the clocks.
        let (_, causal) = Self.replay(events, policy: "CausalFurthest(Direction: Older)", header: skewed)
        #expect(causal.first?.input?.postId == "p7")
        #expect(causal.first?.inputSource == .synced)
    }

    @Test("an algorithmic feed, a laptop an hour fast that read first: after one exchange both devices hold the phone's later reading")
    func fastClockOnAnUnorderedFeed() throws {
        // Both read for over 30 s (no glance), neither having heard of the other; nothing but
        // the clocks can order the writes, and each device learns the other's clock only when
        // the exchange brings the other's write, after its own last save.
        let events: [SessionEvent] = [
            SessionEvent(at: Self.start, .timeline(reason: .initial, posts: Script.posts)),
            SessionEvent(at: Self.start.addingTimeInterval(1), .lifecycle(.launch), device: "laptop"),
            SessionEvent(at: Self.start.addingTimeInterval(2), .scroll(offset: 580), device: "laptop"),
            SessionEvent(at: Self.start.addingTimeInterval(40), .scroll(offset: 600), device: "laptop"),
            SessionEvent(at: Self.start.addingTimeInterval(45), .lifecycle(.background), device: "laptop"),
            SessionEvent(at: Self.start.addingTimeInterval(60), .lifecycle(.launch)),
            SessionEvent(at: Self.start.addingTimeInterval(61), .scroll(offset: 700)),
            SessionEvent(at: Self.start.addingTimeInterval(100), .scroll(offset: 710)),
            SessionEvent(at: Self.start.addingTimeInterval(105), .lifecycle(.background)),
            SessionEvent(at: Self.start.addingTimeInterval(110), .sync(from: "laptop", to: "phone")),
            SessionEvent(at: Self.start.addingTimeInterval(111), .sync(from: "phone", to: "laptop")),
            SessionEvent(at: Self.start.addingTimeInterval(112), .sync(from: "laptop", to: "phone")),
            SessionEvent(at: Self.start.addingTimeInterval(200), .lifecycle(.launch), device: "laptop"),
            SessionEvent(at: Self.start.addingTimeInterval(201), .restore(tag: "clock-fast", expected: .init(postId: "p7")), device: "laptop"),
        ]
        var header = Self.header
        header.feed = .algorithmic
        header.clockSkew = ["laptop": 3600]
        let (replayer, points) = Self.replay(events, policy: "CausalFurthest", header: header)
        let point = try #require(points.first)
        #expect(point.input?.postId == "p7")
        #expect(point.inputSource == .synced)
        let key = RegisterKey(account: "default", timeline: "home")
        // Each published its write again with the other's clock bound, and both agree.
        let heads = replayer.replicas["laptop"]?.state.heads(of: key) ?? []
        #expect(heads.map(\.device) == ["laptop", "phone"])
        #expect(heads.map(\.clocksRevision) == [1, 1])
        #expect(heads.first?.clocks["phone"] == -3_611_000)
        #expect(heads.last?.clocks["laptop"] == 3_530_000)
        #expect(replayer.replicas["phone"]?.state.heads(of: key) == heads)
        #expect(replayer.value(on: "phone")?.device == "phone")
        #expect(replayer.value(on: "laptop")?.device == "phone")
    }

    @Test("a move back by hand, without explicit, wins under CausalFurthest once the device had heard from the other")
    func scrollBackByHand() throws {
        let events: [SessionEvent] = [
            SessionEvent(at: Self.start, .timeline(reason: .initial, posts: Script.posts)),
            SessionEvent(at: Self.start.addingTimeInterval(1), .lifecycle(.launch), device: "laptop"),
            SessionEvent(at: Self.start.addingTimeInterval(2), .scroll(offset: 480), device: "laptop"),
            SessionEvent(at: Self.start.addingTimeInterval(10), .lifecycle(.background), device: "laptop"),
            SessionEvent(at: Self.start.addingTimeInterval(20), .sync(from: "laptop", to: "phone")),
            SessionEvent(at: Self.start.addingTimeInterval(30), .lifecycle(.launch)),
            SessionEvent(at: Self.start.addingTimeInterval(31), .scroll(offset: 580)),
            SessionEvent(at: Self.start.addingTimeInterval(50), .scroll(offset: 700)),
            // Back up by hand to p3, and stays.
            SessionEvent(at: Self.start.addingTimeInterval(90), .scroll(offset: 300)),
            SessionEvent(at: Self.start.addingTimeInterval(100), .lifecycle(.background)),
            SessionEvent(at: Self.start.addingTimeInterval(110), .sync(from: "phone", to: "laptop")),
            SessionEvent(at: Self.start.addingTimeInterval(120), .lifecycle(.launch), device: "laptop"),
            SessionEvent(
                at: Self.start.addingTimeInterval(121), .restore(tag: "scroll-back-by-hand", expected: .init(postId: "p3")), device: "laptop"),
        ]
        let (_, causal) = Self.replay(events, policy: "CausalFurthest")
        #expect(causal.first?.input?.postId == "p3")
        // FurthestRead keeps the laptop's p5, further down than p3, though the phone had seen it.
        #expect(Self.replay(events, policy: "FurthestRead(Direction: Older)").1.first?.input?.postId == "p5")
    }

    @Test("an explicit scroll makes the next save a reset that wins over a position further along")
    func explicitScroll() throws {
        func events(explicit: Bool) -> [SessionEvent] {
            [
                SessionEvent(at: Self.start, .timeline(reason: .initial, posts: Script.posts)),
                SessionEvent(at: Self.start.addingTimeInterval(1), .lifecycle(.launch), device: "laptop"),
                SessionEvent(at: Self.start.addingTimeInterval(2), .scroll(offset: 100), device: "laptop"),
                SessionEvent(at: Self.start.addingTimeInterval(5), .lifecycle(.background), device: "laptop"),
                SessionEvent(at: Self.start.addingTimeInterval(6), .sync(from: "laptop", to: "phone")),
                SessionEvent(at: Self.start.addingTimeInterval(7), .lifecycle(.launch)),
                SessionEvent(at: Self.start.addingTimeInterval(10), .scroll(offset: 580, explicit: explicit)),
                SessionEvent(at: Self.start.addingTimeInterval(20), .lifecycle(.background)),
                SessionEvent(at: Self.start.addingTimeInterval(30), .sync(from: "phone", to: "laptop")),
                SessionEvent(at: Self.start.addingTimeInterval(40), .lifecycle(.launch), device: "laptop"),
                SessionEvent(at: Self.start.addingTimeInterval(41), .restore(tag: "scroll-back", expected: .init(postId: "p6")), device: "laptop"),
            ]
        }
        // The laptop's p1 is newer, so further along for FurthestRead(Newer); only the explicit
        // move back to p6 wins there. CausalFurthest takes p6 either way: the phone had seen p1.
        let (replayer, explicitPoints) = Self.replay(events(explicit: true), policy: "FurthestRead(Direction: Newer)")
        #expect(explicitPoints.first?.input?.postId == "p6")
        #expect(replayer.replicas["laptop"]?.state.heads(of: RegisterKey(account: "default", timeline: "home")).last?.isReset == true)
        #expect(Self.replay(events(explicit: false), policy: "FurthestRead(Direction: Newer)").1.first?.input?.postId == "p1")
        #expect(Self.replay(events(explicit: false), policy: "CausalFurthest").1.first?.input?.postId == "p6")
    }

    @Test("a device going to the background where it already was writes nothing new")
    func repeatedSaveIsNoWrite() throws {
        let events: [SessionEvent] = [
            SessionEvent(at: Self.start, .timeline(reason: .initial, posts: Script.posts)),
            SessionEvent(at: Self.start.addingTimeInterval(1), .lifecycle(.launch)),
            SessionEvent(at: Self.start.addingTimeInterval(2), .scroll(offset: 580)),
            SessionEvent(at: Self.start.addingTimeInterval(10), .lifecycle(.background)),
            SessionEvent(at: Self.start.addingTimeInterval(20), .lifecycle(.foreground)),
            SessionEvent(at: Self.start.addingTimeInterval(30), .lifecycle(.background)),
        ]
        let (replayer, _) = Self.replay(events, policy: "LastWriterWins")
        let phone = try #require(replayer.replicas["phone"])
        // One write, at the scroll: both backgrounds re-save the same place, which is no new write.
        #expect(phone.state.records.first?.savedAt == Self.start.addingTimeInterval(2))
        #expect(phone.sequence == 1)
        #expect(phone.clock.last.milliseconds == UInt64(Self.start.addingTimeInterval(2).timeIntervalSince1970 * 1000))
    }

    @Test("a write converges when every device holds the same winner; its time counts under the next restore point")
    func convergence() throws {
        let events = Self.concurrentReading()
        let (replayer, points) = Self.replay(events, policy: "LastWriterWins")
        #expect(points.count == 1)
        #expect(replayer.devices == ["laptop", "phone"])
        let convergence = replayer.convergence
        // The laptop's write at 2 s has no other device to reach yet: converged at once. The
        // phone's at 61 s reaches the laptop with the second delivery, at 81 s.
        #expect(convergence.converged.map(\.seconds) == [0, 20])
        #expect(convergence.converged.map(\.episode) == [0, 0])
        #expect(convergence.unconverged.isEmpty)
        // Without the second delivery the phone's write never reaches the laptop.
        let (cut, _) = Self.replay(events.filter { $0.kind != .sync(from: "phone", to: "laptop") }, policy: "LastWriterWins")
        #expect(cut.convergence.converged.map(\.seconds) == [0])
        #expect(cut.convergence.unconverged == [0])
    }

    @Test("a restore after the reader was last active on another device is a device switch")
    func deviceSwitch() throws {
        let (_, points) = Self.replay(Self.concurrentReading(), policy: "LastWriterWins")
        #expect(points.first?.afterSwitch == true)
        #expect(points.first?.device == "laptop")
        #expect(points.first?.ownInput?.input?.postId == "p6")
    }

    @Test("a header keeps its version and clockSkew, and an explicit scroll its flag, when written and read back")
    func formatVersionTwoFields() throws {
        var header = Self.header
        header.clockSkew = ["laptop": 3600, "tablet": -86400.5]
        let events = [
            SessionEvent(at: Self.start, .scroll(offset: 10, explicit: true), device: "laptop"),
            SessionEvent(at: Self.start, .scroll(offset: 20)),
        ]
        let text = SessionWriter.line(for: header) + events.map(SessionWriter.line(for:)).joined()
        #expect(text.contains(#""clockSkew":{"laptop":3600,"tablet":-86400.5}"#))
        #expect(text.contains(#""offset":10,"explicit":true}"#))
        #expect(!text.contains(#""offset":20,"explicit""#))
        var reader = try SessionReader(data: Data(text.utf8), name: "skew.jsonl")
        #expect(reader.header == header)
        #expect(reader.header.version == 2)
        var read: [SessionEvent] = []
        while let event = reader.next() { read.append(event) }
        #expect(read == events)
    }

    @Test("a bad clockSkew or explicit is reported with the exact message")
    func badVersionTwoFields() throws {
        let line = SessionWriter.line(for: Self.header).dropLast(3)
        for (field, message) in [
            (
                #""clockSkew":[3600]"#,
                #"skew.jsonl:1:185: error: "clockSkew" must be an object of seconds by device {"laptop":3600}, found array; the session cannot be read"#
            ),
            (
                #""clockSkew":{"laptop":"fast"}"#,
                #"skew.jsonl:1:195: error: "clockSkew.laptop" must be a number, found string; the session cannot be read"#
            ),
            (
                #""clockSkew":{"laptop":1e9}"#,
                #"skew.jsonl:1: error: "clockSkew.laptop" must be within ±31536000 seconds (a year), found 1000000000; the session cannot be read"#
            ),
        ] {
            let text = line + "\"," + field + "}\n"
            #expect(throws: SessionIssue.self) { try SessionReader(data: Data(text.utf8), name: "skew.jsonl") }
            do {
                _ = try SessionReader(data: Data(text.utf8), name: "skew.jsonl")
            } catch {
                #expect(error.description == message)
            }
        }
        let scroll = SessionWriter.line(for: Self.header) + #"{"type":"scroll","at":"2026-01-01T10:00:01Z","offset":1,"explicit":1}"# + "\n"
        var reader = try SessionReader(data: Data(scroll.utf8), name: "bad.jsonl")
        while reader.next() != nil {}
        #expect(
            reader.takeWarnings().map(\.description) == [
                #"bad.jsonl:2:68: warning: "explicit" must be true or false, found number; the line is skipped"#
            ])
    }
}
