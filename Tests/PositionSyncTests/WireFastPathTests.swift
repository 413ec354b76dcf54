import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineJSONText
import TimelineEngineSessionSimulation
import TimelineEngineSyncModel

@testable import TimelineEngineSyncWire

/// The wire format's fast path (`SyncWireScanner`) against the value-tree decoder: the same
/// documents, the same records, the same refusals with the same messages, and each record's text
/// as it came.
@Suite("Sync wire format: the fast path", .timeLimit(.minutes(10)))
struct WireFastPathTests {
    /// Seeded draws: the same documents from the same seed.
    struct Draw {
        var random: SimulationRandom
        init(state: UInt64) { random = SimulationRandom(seed: state) }
        mutating func next() -> UInt64 { random.next() }
        mutating func next(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func chance() -> Bool { next(2) == 0 }
    }

    static let names = [
        "me", "home", "phone", "laptop", "café", "e\u{301}", "a\"b", "back\\slash", "tab\u{9}less", "日本", "🙂", String(repeating: "n", count: 256),
    ]

    /// A record with every optional part drawn: present or not, tombstone or not.
    static func record(_ draw: inout Draw) -> PositionRecord {
        func name() -> String {
            let picked = names[draw.next(names.count)]
            return SyncLimits.nameProblem(picked, "") == nil ? picked : "plain"
        }
        let device = name()
        let time = HybridTimestamp(rawValue: draw.next() >> 1)
        var snapshot: PositionSnapshot?
        if draw.next(5) != 0 {
            snapshot = PositionSnapshot(
                postId: draw.chance() ? "\(draw.next())" : names[draw.next(names.count - 1)],
                postCreatedAt: draw.chance() ? Date(timeIntervalSince1970: Double(draw.next(2_000_000_000)) + 0.25 * Double(draw.next(4))) : nil,
                viewportY: Double(Int(draw.next(20_000)) - 10_000) / Double(1 + draw.next(8)), contentOffset: Double(draw.next(1_000_000)),
                viewportHeight: draw.chance() ? Double(1 + draw.next(2_000)) : nil, index: draw.chance() ? draw.next(100_000) : nil,
                timelineCount: draw.chance() ? draw.next(100_000) : nil,
                neighbors: .init(above: (0..<draw.next(4)).map { "a\($0)" }, below: (0..<draw.next(4)).map { "b\($0)" }),
                text: draw.chance() ? "said \"hi\"\n" : nil, author: draw.chance() ? name() : nil,
                savedAt: draw.chance() ? Date(timeIntervalSince1970: Double(draw.next(2_000_000_000))) : nil,
                deviceId: draw.chance() ? device : nil)
        }
        var context = VersionVector()
        for _ in 0..<draw.next(4) { context.raise(name(), to: draw.next() >> draw.next(64)) }
        var clocks = ClockOffsets()
        for _ in 0..<draw.next(3) { clocks[name()] = Int64(bitPattern: draw.next()) >> Int64(draw.next(64)) }
        return PositionRecord(
            key: RegisterKey(account: name(), timeline: name()), stamp: RegisterStamp(time: time, device: device),
            sequence: 1 + draw.next() >> (1 + UInt64(draw.next(63))), context: context,
            savedAt: Date(timeIntervalSince1970: Double(draw.next(2_000_000_000))), snapshot: snapshot,
            epoch: draw.chance() ? .zero : RegisterStamp(time: HybridTimestamp(rawValue: draw.next() >> 1), device: name()),
            progress: draw.chance() ? .init(createdAt: Double(draw.next(2_000_000_000)) / 4, postId: "p\(draw.next(1_000))") : nil,
            visit: draw.chance() ? .init(seconds: Double(draw.next(100_000)) / 8, posts: draw.next(500)) : nil,
            moves: draw.chance() ? .init(older: draw.next(100), newer: draw.next(100)) : .none, clocks: clocks,
            clocksRevision: draw.chance() ? 0 : UInt64(draw.next(5)))
    }

    /// What the tree decoder makes of `text`: the document, or its message.
    static func tree(_ data: Data) -> Result<SyncWireCoding.Document, SyncWireCoding.DecodingError> {
        Result { () throws(SyncWireCoding.DecodingError) in try SyncWireCoding.treeDecode(data) }
    }

    /// What `received` makes of `text`, checked against the tree decoder; true when the fast path
    /// took it.
    @discardableResult
    static func agrees(_ text: String, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        agrees(data: Data(text.utf8), comment, sourceLocation: sourceLocation)
    }

    @discardableResult
    static func agrees(data: Data, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        let fast = Result { () throws(SyncWireCoding.DecodingError) in try SyncWireCoding.received(data) }
        switch (fast, tree(data)) {
        case (.success(let received), .success(let document)):
            #expect(received.document == document, comment, sourceLocation: sourceLocation)
            guard let texts = received.texts else { return false }
            #expect(texts.count == document.records.count, comment, sourceLocation: sourceLocation)
            for (text, record) in zip(texts, document.records) {
                // Each text is its record alone, read back the same.
                let again = Result { try SyncWireCoding.record(JSONReader().read(Data(text.utf8)), at: "record") }
                #expect((try? again.get()) == record, comment, sourceLocation: sourceLocation)
            }
            return true
        case (.failure(let fastError), .failure(let treeError)):
            #expect(fastError == treeError, comment, sourceLocation: sourceLocation)
        case (let fast, let tree):
            Issue.record("the fast path gave \(fast), the tree decoder \(tree): \(comment.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
        }
        return false
    }

    @Test("every document the encoder writes takes the fast path and decodes as the tree decoder reads it, record texts included")
    func encodedDocuments() throws {
        var draw = Draw(state: 20_261_126)
        for round in 0..<400 {
            let records = (0..<draw.next(4)).map { _ in Self.record(&draw) }
            let document = SyncWireCoding.Document(device: "phone", records: records, cursor: draw.chance() ? draw.next(1 << 40) : nil)
            let text = String(decoding: try SyncWireCoding.encode(document), as: UTF8.self)
            #expect(Self.agrees(text, "round \(round)"), "round \(round): \(text)")
            #expect(try SyncWireCoding.decode(Data(text.utf8)) == document, "round \(round)")
        }
    }

    /// The test record's document written otherwise.
    static func variant(_ name: String) -> String {
        let text = String(decoding: try! SyncWireCoding.encode(.init(device: "phone", records: [WireFormatTests.record])), as: UTF8.self)
        let changes: [String: (String, String)] = [
            "escaped key": (#""account""#, #""acc\u006Funt""#),
            "exponent": (#""contentOffset":0.0"#, #""contentOffset":0e3"#),
            "null text": (#""postId":"42","postCreatedAt""#, #""postId":"42","text":null,"postCreatedAt""#),
            "null cursor": (#""device":"phone","records""#, #""device":"phone","cursor":null,"records""#),
            "unknown member": (#""account":"me""#, #""account":"me","mood":"happy""#),
            "version 2.0": (#""version":2"#, #""version":2.0"#),
            "a number in neighbors": (#""above":[]"#, #""above":[7,"x"]"#),
            "a number as text": (#""postId":"42","postCreatedAt""#, #""postId":"42","text":7,"postCreatedAt""#),
            "big integer": (#""createdAt":1789999000.0"#, #""createdAt":9007199254740993"#),
        ]
        if name == "pretty" { return text.replacingOccurrences(of: #",""#, with: ",\n  \"").replacingOccurrences(of: #"":"#, with: "\" :\t") }
        guard let (original, replacement) = changes[name] else { return text }
        return text.replacingOccurrences(of: original, with: replacement)
    }

    @Test(
        "written otherwise, the same document reads the same: spaces and lines, escaped keys, exponents, nulls",
        arguments: [
            ("pretty", true), ("escaped key", true), ("exponent", true), ("null text", true), ("null cursor", true), ("big integer", true),
            ("unknown member", false), ("version 2.0", false), ("a number in neighbors", false), ("a number as text", false),
        ])
    func variants(_ name: String, _ fast: Bool) throws {
        let text = Self.variant(name)
        try #require(text != Self.variant(""))
        #expect(Self.agrees(text, "\(name)") == fast, "\(name): \(text)")
    }

    @Test(
        "a document the fast path declines is refused with the tree decoder's message",
        arguments: [
            (#""account":"me""#, #""account":"me","account":"you""#, #"not JSON: 1:83: duplicate key "account" (first at line 1)"#),
            (#""laptop":7"#, #""laptop":7,"laptop":8"#, #"not JSON: 1:174: duplicate key "laptop" (first at line 1)"#),
            (#""seq":12"#, #""seq":12.0"#, "records[0].seq must be a positive integer"),
            (#""seq":12"#, #""seq":0"#, "records[0].seq must be a positive integer"),
            (
                #""viewportY":-40.0"#, #""viewportY":1e300"#,
                #"records[0].position: "viewportY" must be between -1000000000000 and 1000000000000, found 1e+300"#
            ),
            (#""records":["#, #""records":[7,"#, "records[0] must be an object"),
            (#""format":"timeline-sync""#, #""format":"timeline-sync!""#, #""format" must be "timeline-sync""#),
        ])
    func declined(_ original: String, _ replacement: String, _ message: String) throws {
        let good = String(decoding: try SyncWireCoding.encode(.init(device: "phone", records: [WireFormatTests.record])), as: UTF8.self)
        let text = good.replacingOccurrences(of: original, with: replacement)
        try #require(text != good)
        #expect(throws: SyncWireCoding.DecodingError(message)) { try SyncWireCoding.received(Data(text.utf8)) }
        Self.agrees(text)
    }

    @Test("a document with any one byte changed, dropped or doubled is read as the tree decoder reads it, or refused with its message")
    func mutatedBytes() {
        var draw = Draw(state: 7)
        for round in 0..<300 {
            let document = SyncWireCoding.Document(device: "phone", records: (0..<(1 + draw.next(2))).map { _ in Self.record(&draw) })
            var bytes = Array(try! SyncWireCoding.encode(document))
            let at = draw.next(bytes.count)
            switch draw.next(3) {
            case 0:
                bytes[at] = [UInt8(ascii: "\""), UInt8(ascii: "1"), UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: " "), 0xC3, 0][draw.next(7)]
            case 1: bytes.remove(at: at)
            default: bytes.insert(bytes[at], at: at)
            }
            Self.agrees(data: Data(bytes), "round \(round), byte \(at)")
        }
    }
}
