import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineSessionFormat

@Suite(.timeLimit(.minutes(10))) struct SessionReaderTests {
    static let header =
        #"{"type":"session","version":1,"id":"s1","device":"phone","timeline":"home","feed":"chronological","viewport":{"width":390,"height":844},"startedAt":"2026-01-01T10:00:00Z"}"#

    func read(_ lines: [String], terminated: Bool = true) throws -> RecordedSession {
        try RecordedSession.read(Data((lines.joined(separator: "\n") + (terminated ? "\n" : "")).utf8), name: "s.jsonl")
    }

    @Test func readsEveryEventType() throws {
        let session = try read([
            Self.header,
            #"{"type":"lifecycle","at":"2026-01-01T10:00:00Z","state":"launch"}"#,
            #"{"type":"timeline","at":"2026-01-01T10:00:00.5Z","reason":"initial","posts":[{"id":"a","createdAt":"2026-01-01T09:00:00Z","author":"x","text":"hi","height":120},{"id":"b","createdAt":"2026-01-01T08:00:00Z"}]}"#,
            #"{"type":"insert","at":"2026-01-01T10:00:01Z","index":0,"posts":[{"id":"c","createdAt":"2026-01-01T09:30:00Z"}]}"#,
            #"{"type":"remove","at":"2026-01-01T10:00:02Z","ids":["b"]}"#,
            #"{"type":"update","at":"2026-01-01T10:00:03Z","posts":[{"id":"a","createdAt":"2026-01-01T09:00:00Z","height":200}]}"#,
            #"{"type":"scroll","at":"2026-01-01T10:00:04Z","offset":150.5}"#,
            #"{"type":"restore","at":"2026-01-01T10:00:05+00:00","tag":"present","expected":{"postId":"a","viewportY":-10}}"#,
        ])
        #expect(session.warnings.isEmpty)
        #expect(session.header.viewport == .init(width: 390, height: 844))
        #expect(session.events.count == 7)
        guard case .timeline(.initial, let posts) = session.events[1].kind else {
            Issue.record("not a timeline")
            return
        }
        #expect(
            posts == [
                Post(id: "a", createdAt: Date(timeIntervalSince1970: 1_767_258_000), author: "x", text: "hi", height: 120),
                Post(id: "b", createdAt: Date(timeIntervalSince1970: 1_767_254_400)),
            ])
        #expect(session.events[1].at == Date(timeIntervalSince1970: 1_767_261_600.5))
        #expect(session.events[5].kind == .scroll(offset: 150.5))
        #expect(session.events[6].kind == .restore(tag: "present", expected: .init(postId: "a", viewportY: -10)))
    }

    @Test func writerAndReaderRoundTrip() throws {
        let events: [SessionEvent] = [
            SessionEvent(
                at: Date(timeIntervalSince1970: 1_767_261_600),
                .timeline(
                    reason: .refresh,
                    posts: [
                        Post(
                            id: "a", createdAt: Date(timeIntervalSince1970: 1_767_258_000), author: "x", text: "line\n\"quoted\" ünïcode 🎉",
                            height: 92.5)
                    ])),
            SessionEvent(at: Date(timeIntervalSince1970: 1_767_261_600.25), .scroll(offset: -12)),
            SessionEvent(at: Date(timeIntervalSince1970: 1_767_261_601), .lifecycle(.background)),
            SessionEvent(at: Date(timeIntervalSince1970: 1_767_261_602), .restore(tag: nil, expected: .init(postId: "a"))),
        ]
        let header = SessionHeader(
            id: "s", device: "d", account: "me", timeline: "home", feed: .algorithmic,
            viewport: .init(width: 390, height: 844), startedAt: Date(timeIntervalSince1970: 1_767_261_600))
        let text = SessionWriter.text(of: RecordedSession(header: header, events: events))
        let read = try RecordedSession.read(Data(text.utf8), name: "t")
        #expect(read == RecordedSession(header: header, events: events))
    }

    @Test func versionThreeCarriesTheAPIAndFetchEvents() throws {
        let header = Self.header.replacingOccurrences(of: #""version":1"#, with: #""version":3"#)
            .replacingOccurrences(of: #""startedAt""#, with: #""api":"bluesky","startedAt""#)
        let session = try read([
            header,
            #"{"type":"fetch","at":"2026-01-01T10:00:00Z","device":"laptop","limit":40}"#,
            #"{"type":"fetch","at":"2026-01-01T10:00:01Z","device":"laptop","limit":0}"#,
            #"{"type":"fetch","at":"2026-01-01T10:00:02Z","device":"laptop"}"#,
        ])
        #expect(session.header.version == 3)
        #expect(session.header.api == .bluesky)
        #expect(session.events == [SessionEvent(at: Date(timeIntervalSince1970: 1_767_261_600), .fetch(limit: 40), device: "laptop")])
        #expect(
            session.warnings.map(\.description) == [
                #"s.jsonl:3: warning: "limit" must be a whole number from 1 to 1000, found 0; the line is skipped"#,
                #"s.jsonl:4: warning: a fetch event needs "limit"; the line is skipped"#,
            ])
        // The writer writes what the reader read.
        let written = SessionWriter.text(of: RecordedSession(header: session.header, events: session.events))
        #expect(written.contains(#""api":"bluesky""#))
        #expect(try RecordedSession.read(Data(written.utf8), name: "w.jsonl").events == session.events)
        #expect(throws: SessionIssue.self) {
            try read([Self.header.replacingOccurrences(of: #""startedAt""#, with: #""api":"twitter","startedAt""#)])
        }
    }

    @Test func versionThreeCarriesTheServersCursors() throws {
        let header = Self.header.replacingOccurrences(of: #""version":1"#, with: #""version":3"#)
            .replacingOccurrences(of: #""startedAt""#, with: #""api":"bluesky","startedAt""#)
        #expect(try read([header]).header.cursors == .timeKeyed)
        for cursors in SessionHeader.Cursors.allCases {
            let session = try read([header.replacingOccurrences(of: #""startedAt""#, with: #""cursors":"\#(cursors.rawValue)","startedAt""#)])
            #expect(session.header.cursors == cursors)
            // Written only when it is not the default.
            let written = SessionWriter.text(of: RecordedSession(header: session.header, events: []))
            #expect(written.contains(#""cursors":"#) == (cursors != .timeKeyed))
            #expect(try RecordedSession.read(Data(written.utf8), name: "w.jsonl").header == session.header)
        }
        do {
            _ = try RecordedSession.read(
                Data((header.replacingOccurrences(of: #""startedAt""#, with: #""cursors":"signed","startedAt""#) + "\n").utf8), name: "s.jsonl")
            Issue.record("read")
        } catch {
            #expect(
                error.description
                    == #"s.jsonl:1: error: "cursors" must be "time-keyed", "opaque" or "issued-only", found "signed"; the session cannot be read"#)
        }
    }

    @Test func headerProblemsMakeTheSessionUnreadable() {
        func message(_ text: String) -> String {
            do {
                _ = try RecordedSession.read(Data(text.utf8), name: "s.jsonl")
                return "read"
            } catch {
                return error.description
            }
        }
        #expect(message("") == "s.jsonl: error: the file is empty; a session starts with its header line")
        #expect(
            message(#"{"type":"scroll","at":"2026-01-01T10:00:00Z","offset":1}"# + "\n")
                == #"s.jsonl:1: error: the first line must be the session header; found a "scroll" event; the session cannot be read"#)
        #expect(
            message(Self.header.replacingOccurrences(of: #""version":1"#, with: #""version":4"#) + "\n")
                == "s.jsonl:1: error: unsupported session format version 4; this engine reads versions 1, 2 and 3; the session cannot be read")
        #expect(
            message(Self.header.replacingOccurrences(of: #""feed":"chronological","#, with: "") + "\n")
                == #"s.jsonl:1: error: the header needs "feed"; the session cannot be read"#)
        #expect(
            message(String(Self.header.prefix(40)))
                == "s.jsonl:1:41: error: the header line is incomplete: expected a string key, found end of line; the session cannot be read")
    }

    @Test func badLinesAreSkippedWithWarnings() throws {
        let session = try read(
            [
                Self.header,
                #"{"type":"scroll","at":"2026-01-01T10:00:04Z","offset":10}"#,
                #"{"type":"scroll","at":"2026-01-01T10:00:05Z","offset":"far"}"#,
                #"{"type":"scroll","at":"2026-01-01T10:00:03Z","offset":20}"#,
                #"{"type":"scroll" "at":"2026-01-01T10:00:06Z"}"#,
                #"{"type":"gesture","at":"2026-01-01T10:00:06Z","kind":"pinch"}"#,
                #"{"type":"scroll","at":"2026-01-01T10:00:07Z","offset":30,"velocity":2}"#,
                #"{"type":"scroll","at":"2026-01-01T10:00:08Z","offset":40,"velocity":3}"#,
                #"{"type":"lifecycle","at":"2026-01-01T10:00:09Z","state":"sleep"}"#,
                #"{"type":"insert","at":"2026-01-01T10:00:09Z","index":-1,"posts":[]}"#,
                "",
                #"{"type":"scroll","at":"2026-01-01T10:00:10Z","offset":1e300}"#,
                #"{"type":"update","at":"2026-01-01T10:00:10Z","posts":[{"id":"a","createdAt":"2026-01-01T09:00:00Z","height":1e20}]}"#,
                #"{"type":"timeline","at":"2026-01-01T10:00:11Z","reason":"refresh","posts":[{"id":"a","createdAt":"2026-01-01T09:00:00Z"},{"id":"b","createdAt":"2026-01-01T09:00:00Z"},{"id":"a","createdAt":"2026-01-01T08:00:00Z"}]}"#,
                #"{"type":"scroll","at":"2026-01-01T10:00:12Z","offs"#,
            ], terminated: false)
        #expect(session.events.map(\.kind).count == 4)
        #expect(session.events.prefix(3).map(\.kind) == [.scroll(offset: 10), .scroll(offset: 30), .scroll(offset: 40)])
        #expect(
            session.warnings.map(\.description) == [
                #"s.jsonl:3:55: warning: "offset" must be a number, found string; the line is skipped"#,
                #"s.jsonl:4: warning: "at" goes backwards: 2026-01-01T10:00:03Z is before 2026-01-01T10:00:04Z; the event is skipped"#,
                #"s.jsonl:5:18: warning: expected ',' or '}' after a member, found '"'; the line is skipped"#,
                #"s.jsonl:6: warning: unknown event type "gesture"; skipped (and any later ones)"#,
                #"s.jsonl:7: warning: unknown field "velocity" in scroll events; ignored"#,
                #"s.jsonl:9: warning: "state" must be one of "background", "foreground", "terminate", "launch", found "sleep"; the line is skipped"#,
                #"s.jsonl:10: warning: "index" must be an integer from 0 to 2147483647, found -1; the line is skipped"#,
                #"s.jsonl:12: warning: "offset" must be between -1000000000000 and 1000000000000, found 1e+300; the line is skipped"#,
                #"s.jsonl:13:109: warning: "posts[0].height" must be greater than 0 and at most 1000000, found 1e+20; the line is skipped"#,
                #"s.jsonl:14: warning: post id "a" appears twice in "posts" (posts[0] and posts[2]); lookups by id find the first"#,
                "s.jsonl:15: warning: the last line is incomplete, as when a recording is cut off by a crash; it is skipped",
            ])
    }

    @Test("a restore's truth of divergence and of posts unseen, and a boost's original, read, written back and checked")
    func divergenceUnreadAndBoosts() throws {
        let session = try read([
            Self.header,
            #"{"type":"timeline","at":"2026-01-01T10:00:00Z","reason":"initial","posts":[{"id":"b","createdAt":"2026-01-01T09:30:00Z","boostOf":"a"},{"id":"a","createdAt":"2026-01-01T09:00:00Z"}]}"#,
            #"{"type":"restore","at":"2026-01-01T10:00:05Z","tag":"diverged","expected":{"postId":"a","diverged":true,"unread":1}}"#,
            #"{"type":"restore","at":"2026-01-01T10:00:06Z","expected":{"postId":"a","unread":-1}}"#,
            #"{"type":"restore","at":"2026-01-01T10:00:07Z","expected":{"postId":"a","unread":1.5}}"#,
            #"{"type":"restore","at":"2026-01-01T10:00:08Z","expected":{"postId":"a","diverged":"yes"}}"#,
        ])
        guard case .timeline(_, let posts) = session.events[0].kind else {
            Issue.record("not a timeline")
            return
        }
        #expect(posts.first?.boostOf == "a")
        #expect(session.events[1].kind == .restore(tag: "diverged", expected: .init(postId: "a", diverged: true, unread: 1)))
        #expect(
            session.warnings.map(\.description) == [
                #"s.jsonl:4: warning: "expected.unread" must be a whole number from 0 to 1000000000, found -1; the line is skipped"#,
                #"s.jsonl:5: warning: "expected.unread" must be a whole number from 0 to 1000000000, found 1.5; the line is skipped"#,
                #"s.jsonl:6:83: warning: "expected.diverged" must be true or false, found string; the line is skipped"#,
            ])
        let text = SessionWriter.text(of: RecordedSession(header: session.header, events: Array(session.events.prefix(2))))
        #expect(text.contains(#""boostOf":"a""#))
        #expect(text.contains(#""expected":{"postId":"a","diverged":true,"unread":1}"#))
    }

    @Test func aCompleteLastLineWithoutANewlineStillCounts() throws {
        let session = try read([Self.header, #"{"type":"scroll","at":"2026-01-01T10:00:04Z","offset":10}"#], terminated: false)
        #expect(session.events.count == 1)
        #expect(session.warnings.isEmpty)
    }

    @Test func hostileLinesDoNotCrash() throws {
        let deep = String(repeating: "[", count: 100_000)
        let session = try read([Self.header, #"{"type":"x","at":"2026-01-01T10:00:04Z","deep":"# + deep, "\u{FF}\u{FE}garbage", "null", "[]", "{}"])
        #expect(session.events.isEmpty)
        #expect(session.warnings.count == 5)
    }
}
