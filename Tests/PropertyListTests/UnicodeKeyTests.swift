import Foundation
import Testing
import TimelineEnginePropertyList
import TimelineEngineValueTree

/// Property-list keys compare by Unicode scalars, as Apple's readers do: "é" (U+00E9) and
/// "e" + U+0301 are two keys.
@Suite("Plist keys by Unicode scalars", .timeLimit(.minutes(10)))
struct UnicodeKeyTests {
    static let composed = "\u{E9}"
    static let decomposed = "e\u{301}"

    @Test("a property list may hold both spellings as two keys, in reading and in checking")
    func plistKeys() throws {
        let document = Data(
            "<plist><dict><key>\(Self.composed)</key><integer>1</integer><key>\(Self.decomposed)</key><integer>2</integer></dict></plist>".utf8)
        let value = try PropertyListReader().read(document)
        #expect(value.dictionaryValue?.count == 2)
        #expect(value[Self.decomposed] == .integer(2))
        try PropertyListReader().check(document)
        let repeated = Data("<plist><dict><key>\(Self.composed)</key><true/><key>\(Self.composed)</key><true/></dict></plist>".utf8)
        #expect(throws: PropertyListError.self) { try PropertyListReader().check(repeated) }
        // Written back, both keys survive.
        let written = try PropertyListWriter().write(value)
        #expect(try PropertyListReader().read(Data(written.utf8)) == value)
    }
}
