import Configuration
import Foundation
import PositionTracking
import SessionFormat
import SessionReplay
import Testing
import TimelineCore

/// Sessions with devices (format version 2): each device has its own tracker, saves become
/// register writes, and `sync` events carry them between devices under the merge policy.
@Suite("Multi-device replay")
struct MultiDeviceReplayTests {
    static let start = Script.start
    static let header = SessionHeader(id: "two", device: "phone", timeline: "home", viewport: .init(width: 200, height: 300), startedAt: start,
                                      version: SessionHeader.multiDeviceVersion)

    static func settings(policy: String?) -> ReplaySettings {
        var settings = ReplaySettings()
        settings.mergePolicy = policy.map { ComponentSpec(name: $0) }
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
            events += [SessionEvent(at: start.addingTimeInterval(20), .lifecycle(.launch), device: "laptop"),
                       SessionEvent(at: start.addingTimeInterval(21), .scroll(offset: staleLaptopOffset), device: "laptop"),
                       SessionEvent(at: start.addingTimeInterval(30), .lifecycle(.background), device: "laptop")]
        }
        if sync { events.append(SessionEvent(at: start.addingTimeInterval(60), .sync(from: "phone", to: "laptop"))) }
        events.append(SessionEvent(at: start.addingTimeInterval(61), .restore(tag: "device-switch", expected: .init(postId: "p6")), device: "laptop"))
        return events
    }

    static func restorePoint(_ events: [SessionEvent], policy: String?) -> RestorePoint? {
        var replayer = SessionReplayer(header: header, settings: settings(policy: policy))
        var point: RestorePoint?
        for event in events { point = replayer.apply(event) ?? point }
        return point
    }

    @Test("a position synced from the phone is the laptop's input at its restore")
    func synced() throws {
        let point = try #require(Self.restorePoint(Self.events(sync: true), policy: "FurthestRead"))
        #expect(point.inputSource == .synced)
        #expect(point.input?.postId == "p6")
    }

    @Test("without the delivery, or with sync off, the laptop has nothing from the phone")
    func notDelivered() throws {
        #expect(Self.restorePoint(Self.events(sync: false), policy: "FurthestRead")?.inputSource == RestorePoint.InputSource.none)
        #expect(Self.restorePoint(Self.events(sync: true), policy: nil)?.inputSource == RestorePoint.InputSource.none)
    }

    @Test("a laptop that showed an older position later: FurthestRead takes it to the phone's, LastWriterWins leaves it there")
    func policies() throws {
        // The phone read up to p1; the laptop, stale, saved p6 afterwards.
        let events = Self.events(sync: true, phoneOffset: 100, staleLaptopOffset: 580)
        let further = try #require(Self.restorePoint(events, policy: "FurthestRead"))
        #expect(further.input?.postId == "p1")
        #expect(further.inputSource == .synced)
        let latest = try #require(Self.restorePoint(events, policy: "LastWriterWins"))
        #expect(latest.input?.postId == "p6")
        #expect(latest.inputSource == .savedSnapshot)
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
        let bad = SessionWriter.line(for: Self.header) + #"{"type":"sync","at":"2026-01-01T10:00:00Z","from":"phone"}"# + "\n"
            + #"{"type":"scroll","at":"2026-01-01T10:00:01Z","offset":1,"device":""}"# + "\n"
        var badReader = try SessionReader(data: Data(bad.utf8), name: "bad.jsonl")
        while badReader.next() != nil {}
        #expect(badReader.takeWarnings().map(\.description) == [
            #"bad.jsonl:2: warning: a sync event needs "to"; the line is skipped"#,
            #"bad.jsonl:3:66: warning: "device" must not be empty; the line is skipped"#,
        ])
    }
}
