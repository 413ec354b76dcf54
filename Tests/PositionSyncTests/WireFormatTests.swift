import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineJSONSchema
import TimelineEngineJSONText
import TimelineEngineSyncModel
import TimelineEngineSyncWire
import TimelineEngineTestSupport
import TimelineEngineValueTree

/// The wire format: what the encoder writes validates against `schemas/sync-wire.schema.json`,
/// the decoder and the schema agree on what they refuse, and unknown members pass.
@Suite("Sync wire format", .timeLimit(.minutes(10)))
struct WireFormatTests {
    static let schema: JSONSchema = {
        // The schema file is part of the repository; a test that cannot read it fails below.
        (try? JSONSchema(JSONReader().read(Data(contentsOf: Fixtures.repositoryURL("schemas/sync-wire.schema.json")))))
            ?? (try! JSONSchema(.bool(false)))
    }()

    static let record = PositionRecord(
        key: RegisterKey(account: "me", timeline: "home"),
        stamp: RegisterStamp(time: HybridTimestamp(milliseconds: 1_790_000_000_000, counter: 3), device: "phone"),
        sequence: 12, context: VersionVector([("laptop", 7), ("tablet", 2)]), savedAt: Date(timeIntervalSince1970: 1_790_000_000),
        snapshot: PositionSnapshot(postId: "42", postCreatedAt: Date(timeIntervalSince1970: 1_789_999_000), viewportY: -40),
        epoch: .zero, progress: .init(createdAt: 1_789_999_000, postId: "42"), visit: .init(seconds: 184.5, posts: 23),
        moves: .init(older: 40, newer: 3))

    @Test("an encoded document round-trips and validates against the schema; a tombstone too")
    func roundTrip() throws {
        var tombstone = Self.record
        tombstone.snapshot = nil
        tombstone.progress = nil
        let document = SyncWireCoding.Document(device: "phone", records: [Self.record, tombstone])
        let data = try SyncWireCoding.encode(document)
        #expect(try SyncWireCoding.decode(data) == document)
        #expect(Self.schema.validate(try JSONReader().read(data)).isValid)
    }

    @Test("a head published again with more clock bounds carries its clocks revision, read back by both decoders and the schema; 0 is not written")
    func clocksRevision() throws {
        var republished = Self.record
        republished.clocks = ClockOffsets([("laptop", 3_150_000)])
        republished.clocksRevision = 2
        let data = try SyncWireCoding.encode(.init(device: "phone", records: [republished, Self.record]))
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""clocks":{"laptop":3150000},"clocksRevision":2,"#))
        #expect(text.components(separatedBy: "clocksRevision").count == 2)
        let decoded = try SyncWireCoding.decode(data)
        #expect(decoded.records.map(\.clocksRevision) == [2, 0])
        // The fast path (it gives each record's text) reads it as the tree decoder does.
        let received = try SyncWireCoding.received(data)
        #expect(received.document == decoded && received.texts != nil)
        #expect(Self.schema.validate(try JSONReader().read(data)).isValid)
        // The higher revision of one write replaces the lower; the lower never comes back.
        var register = Register([Self.record])
        let (replaced, restored) = (register.insert(republished), register.insert(Self.record))
        #expect(replaced && !restored)
        #expect(register.head(of: "phone")?.clocksRevision == 2)
    }

    @Test("a head carries the digests of the posts its device read last, read back by both decoders and the schema; none is not written")
    func reads() throws {
        var reader = Self.record
        reader.reads = [ReadDigest(post: 0xDEAD_BEEF, content: 1), ReadDigest(post: ReadPosts.digest(of: "42"))]
        let data = try SyncWireCoding.encode(.init(device: "phone", records: [reader, Self.record]))
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""reads":"3q2+7wAAAAGH44WDAAAAAA==""#))
        #expect(text.components(separatedBy: "reads").count == 2)
        let decoded = try SyncWireCoding.decode(data)
        #expect(decoded.records.map(\.reads) == [reader.reads, []])
        let received = try SyncWireCoding.received(data)
        #expect(received.document == decoded && received.texts != nil)
        #expect(Self.schema.validate(try JSONReader().read(data)).isValid)
        // A write keeps the latest reads only.
        reader.reads = (0..<2_000).map { ReadDigest(post: UInt32($0)) }
        #expect(reader.reads.count == PositionRecord.maximumReads && reader.reads.first?.post == 976)
    }

    @Test("unknown members are accepted by both, for newer writers")
    func forwardCompatible() throws {
        let text = String(decoding: try SyncWireCoding.encode(.init(device: "phone", records: [Self.record])), as: UTF8.self)
            .replacingOccurrences(of: #""device":"phone","records""#, with: #""device":"phone","compression":"none","records""#)
            .replacingOccurrences(of: #""account":"me""#, with: #""account":"me","mood":"happy""#)
        #expect(throws: Never.self) { try SyncWireCoding.decode(Data(text.utf8)) }
        #expect(Self.schema.validate(try JSONReader().read(Data(text.utf8))).isValid)
    }

    /// A good document with one thing broken.
    static func broken(_ what: String) -> String {
        let good = String(decoding: try! SyncWireCoding.encode(.init(device: "phone", records: [record])), as: UTF8.self)
        switch what {
        case "hlc": return good.replacingOccurrences(of: #""hlc":"\#(record.stamp.time)""#, with: #""hlc":"019f""#)
        case "device": return good.replacingOccurrences(of: #""device":"phone","seq""#, with: #""device":"","seq""#)
        case "account": return good.replacingOccurrences(of: #""account":"me""#, with: #""account":7"#)
        case "seq": return good.replacingOccurrences(of: #""seq":12,"#, with: "")
        case "context": return good.replacingOccurrences(of: #""laptop":7"#, with: #""laptop":"seven""#)
        case "visit": return good.replacingOccurrences(of: #""posts":23"#, with: #""posts":-1"#)
        case "long device":
            return good.replacingOccurrences(of: #""device":"phone","seq""#, with: #""device":"\#(String(repeating: "d", count: 257))","seq""#)
        case "long account": return good.replacingOccurrences(of: #""account":"me""#, with: #""account":"\#(String(repeating: "a", count: 257))""#)
        case "long post":
            return good.replacingOccurrences(
                of: #""position":{"postId":"42""#, with: #""position":{"postId":"\#(String(repeating: "1", count: 513))""#)
        // A context of 40,000 devices took a server 8.4 s to take in: refused in linear time.
        case "wide context": return good.replacingOccurrences(of: #""laptop":7"#, with: (0..<40_000).map { #""d\#($0)":1"# }.joined(separator: ","))
        case "clocks revision": return good.replacingOccurrences(of: #""moves":"#, with: #""clocksRevision":-1,"moves":"#)
        // Six bytes: not whole digests.
        case "reads": return good.replacingOccurrences(of: #""moves":"#, with: #""reads":"AAAAAAAA","moves":"#)
        case "many reads":
            let digests = SyncWireCoding.readsText((0...1_024).map { ReadDigest(post: UInt32($0)) })
            return good.replacingOccurrences(of: #""moves":"#, with: #""reads":"\#(digests)","moves":"#)
        case "wide clocks":
            return good.replacingOccurrences(
                of: #""moves":"#, with: #""clocks":{"# + (0...1_000).map { #""c\#($0)":1"# }.joined(separator: ",") + #"},"moves":"#)
        default: return good.replacingOccurrences(of: #""version":2"#, with: #""version":3"#)
        }
    }

    @Test("a version-1 document is read: its records become heads numbered by their clock's milliseconds, with empty contexts")
    func versionOne() throws {
        let text = """
            {"format":"timeline-sync","version":1,"device":"old","records":[{"account":"me","timeline":"home","hlc":"000000000bb80007",\
            "device":"old","seq":99,"context":{"x":1},"savedAt":"2026-09-21T12:26:40Z","epoch":{"hlc":"0000000000000000","device":""},\
            "position":{"postId":"o1"}}]}
            """
        let record = try #require(try SyncWireCoding.decode(Data(text.utf8)).records.first)
        #expect(record.sequence == 3_000)
        #expect(record.context.isEmpty)
        #expect(Self.schema.validate(try JSONReader().read(Data(text.utf8))).isValid)
    }

    @Test(
        "a bad timestamp, an empty or too long name or post id, a wrong type or another version is refused by the decoder, with where, and by the schema",
        arguments: [
            ("hlc", "records[0].hlc must be a hybrid timestamp: 16 hexadecimal digits"),
            ("device", "records[0].device must not be empty"),
            ("account", "records[0].account must be a string"),
            ("seq", "records[0].seq must be a positive integer"),
            ("context", "records[0].context.laptop must be a non-negative integer"),
            ("visit", "records[0].visit must have a non-negative number seconds and a non-negative integer posts"),
            ("long device", "records[0].device is 257 bytes long, more than the limit of 256"),
            ("long account", "records[0].account is 257 bytes long, more than the limit of 256"),
            ("long post", "records[0].position.postId is 513 bytes long, more than the limit of 512"),
            ("wide context", "records[0].context names 40001 devices, more than the limit of 1000"),
            ("wide clocks", "records[0].clocks names 1001 devices, more than the limit of 1000"),
            ("clocks revision", "records[0].clocksRevision must be a non-negative integer"),
            ("reads", "records[0].reads must be base64 of at most 1024 read digests of 8 bytes each"),
            ("many reads", "records[0].reads must be base64 of at most 1024 read digests of 8 bytes each"),
            ("version", "version 3 is not supported; this engine reads versions 1 to 2"),
        ])
    func refused(_ what: String, _ message: String) throws {
        let bad = Self.broken(what)
        #expect(throws: SyncWireCoding.DecodingError(message)) { try SyncWireCoding.decode(Data(bad.utf8)) }
        #expect(!Self.schema.validate(try JSONReader().read(Data(bad.utf8))).isValid)
    }

    @Test("text a peer, a server or a file controls is printed with its control characters escaped, and cut")
    func terminalText() {
        #expect(TerminalText.escaped("phone\u{1B}[2J\nerror: forged") == "phone\\u{1b}[2J\\u{a}error: forged")
        #expect(TerminalText.escaped("a\u{202E}b\u{85}c\u{7F}") == "a\\u{202e}b\\u{85}c\\u{7f}")
        #expect(TerminalText.escaped("ok, café") == "ok, café")
        #expect(TerminalText.escaped(String(repeating: "x", count: 500)) == String(repeating: "x", count: 300) + "…")
        var pull = SyncPull()
        pull.add(Data("nope".utf8), from: "shared/\u{1B}]0;owned\u{7}.timeline-sync.json")
        #expect(pull.warnings == ["shared/\\u{1b}]0;owned\\u{7}.timeline-sync.json: skipped: not JSON: 1:1: invalid literal: expected 'null'"])
    }
}
