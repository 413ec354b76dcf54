import Foundation
import Testing
import TimelineEngineJSONText
import TimelineEnginePropertyList
import TimelineEngineTestSupport
import TimelineEngineValueTree

/// The plist conformance corpus in `Tests/Fixtures/plist-corpus` (see its README).
@Suite("Plist conformance corpus", .timeLimit(.minutes(10)))
struct CorpusTests {
    static let valid = Fixtures.files(in: "plist-corpus/valid", withSuffix: ".plist")
    static let invalid = Fixtures.files(in: "plist-corpus/invalid", withSuffix: ".plist")

    @Test("valid/ reads to exactly its .expected.json", arguments: valid)
    func validFileMatchesExpectation(_ file: URL) throws {
        let value = try PropertyListReader().read(contentsOf: file)
        let expectedURL = file.deletingPathExtension().appendingPathExtension("expected.json")
        let expected = try TypedJSON.decode(Data(contentsOf: expectedURL))
        #expect(value == expected, "\(file.lastPathComponent)")
    }

    @Test("valid/ prints exactly the expected typed JSON text", arguments: valid)
    func typedJSONTextIsIdentical(_ file: URL) throws {
        let value = try PropertyListReader().read(contentsOf: file)
        let expectedURL = file.deletingPathExtension().appendingPathExtension("expected.json")
        let expected = try String(contentsOf: expectedURL, encoding: .utf8)
        #expect(try TypedJSON.encode(value) == expected)
    }

    @Test("valid/ survives a write and a second read unchanged", arguments: valid)
    func roundTrip(_ file: URL) throws {
        let value = try PropertyListReader().read(contentsOf: file)
        let written = try PropertyListWriter().data(value)
        let reread = try PropertyListReader().read(written)
        #expect(reread == value)
        #expect(try PropertyListWriter().data(reread) == written)
    }

    @Test("invalid/ is rejected with a line number", arguments: invalid)
    func invalidFileIsRejected(_ file: URL) throws {
        let error = #expect(throws: PropertyListError.self) {
            try PropertyListReader().read(contentsOf: file)
        }
        #expect(error?.location != nil, "\(file.lastPathComponent): \(String(describing: error))")
        #expect((error?.location?.line ?? 0) >= 1)
    }

    @Test("the corpus counts")
    func counts() {
        print("plist corpus: \(Self.valid.count) valid, \(Self.invalid.count) invalid files")
        #expect(Self.valid.count == 20)
        #expect(Self.invalid.count == 17)
    }
}
