import Foundation
import JSONSchema
import JSONText
import SyncModel
import Testing
import TestSupport
import TimelineCore

/// The wire format: what the encoder writes validates against `schemas/sync-wire.schema.json`,
/// the decoder and the schema agree on what they refuse, and unknown members pass.
@Suite("Sync wire format")
struct WireFormatTests {
    static let schema: JSONSchema = {
        // The schema file is part of the repository; a test that cannot read it fails below.
        (try? JSONSchema(JSONReader().read(Data(contentsOf: Fixtures.repositoryURL("schemas/sync-wire.schema.json"))))) ?? (try! JSONSchema(.bool(false)))
    }()

    static let record = PositionRecord(
        key: RegisterKey(account: "me", timeline: "home"), stamp: RegisterStamp(time: HybridTimestamp(milliseconds: 1_790_000_000_000, counter: 3), device: "phone"),
        savedAt: Date(timeIntervalSince1970: 1_790_000_000), snapshot: PositionSnapshot(postId: "42", postCreatedAt: Date(timeIntervalSince1970: 1_789_999_000), viewportY: -40),
        epoch: .zero, progress: .init(createdAt: 1_789_999_000, postId: "42"))

    @Test("an encoded document round-trips and validates against the schema; a tombstone too")
    func roundTrip() throws {
        var tombstone = Self.record
        tombstone.snapshot = nil
        tombstone.progress = nil
        let document = SyncWireCoding.Document(device: "phone", records: [Self.record, tombstone])
        let data = SyncWireCoding.encode(document)
        #expect(try SyncWireCoding.decode(data) == document)
        #expect(Self.schema.validate(try JSONReader().read(data)).isValid)
    }

    @Test("unknown members are accepted by both, for newer writers")
    func forwardCompatible() throws {
        let text = String(decoding: SyncWireCoding.encode(.init(device: "phone", records: [Self.record])), as: UTF8.self)
            .replacingOccurrences(of: #""device":"phone","records""#, with: #""device":"phone","compression":"none","records""#)
            .replacingOccurrences(of: #""account":"me""#, with: #""account":"me","mood":"happy""#)
        #expect(throws: Never.self) { try SyncWireCoding.decode(Data(text.utf8)) }
        #expect(Self.schema.validate(try JSONReader().read(Data(text.utf8))).isValid)
    }

    /// A good document with one thing broken.
    static func broken(_ what: String) -> String {
        let good = String(decoding: SyncWireCoding.encode(.init(device: "phone", records: [record])), as: UTF8.self)
        switch what {
        case "hlc": return good.replacingOccurrences(of: #""hlc":"\#(record.stamp.time)""#, with: #""hlc":"019f""#)
        case "device": return good.replacingOccurrences(of: #""device":"phone","savedAt""#, with: #""device":"","savedAt""#)
        case "account": return good.replacingOccurrences(of: #""account":"me""#, with: #""account":7"#)
        default: return good.replacingOccurrences(of: #""version":1"#, with: #""version":2"#)
        }
    }

    @Test("a bad timestamp, an empty device, a wrong type or another version is refused by the decoder, with where, and by the schema", arguments: [
        ("hlc", "records[0].hlc must be a hybrid timestamp: 16 hexadecimal digits"),
        ("device", "records[0].device must not be empty"),
        ("account", "records[0].account must be a string"),
        ("version", "version 2 is not supported; this engine reads version 1"),
    ])
    func refused(_ what: String, _ message: String) throws {
        let bad = Self.broken(what)
        #expect(throws: SyncWireCoding.DecodingError(message)) { try SyncWireCoding.decode(Data(bad.utf8)) }
        #expect(!Self.schema.validate(try JSONReader().read(Data(bad.utf8))).isValid)
    }
}
