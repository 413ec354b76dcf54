import Foundation
import Testing
import TimelineEngineValueTree

@Suite("Value tree", .timeLimit(.minutes(10)))
struct ValueTreeTests {
    @Test("integers parse over the whole plist range and no further")
    func integers() {
        #expect(IntegerValue.parse(Array("18446744073709551615".utf8)) == .integer(IntegerValue(UInt64.max)))
        #expect(IntegerValue.parse(Array("-9223372036854775808".utf8)) == .integer(IntegerValue(Int64.min)))
        #expect(IntegerValue.parse(Array("18446744073709551616".utf8)) == .outOfRange)
        #expect(IntegerValue.parse(Array("-9223372036854775809".utf8)) == .outOfRange)
        #expect(IntegerValue.parse(Array("0xFF".utf8)) == .integer(IntegerValue(255)))
        #expect(IntegerValue.parse(Array("0x".utf8)) == .notAnInteger)
        #expect(IntegerValue.parse(Array("1 2".utf8)) == .notAnInteger)
        #expect(IntegerValue.parse(Array("".utf8)) == .notAnInteger)
        #expect(IntegerValue(isNegative: true, magnitude: 0)?.isNegative == false)
        #expect(IntegerValue(Int64.min).int64Value == Int64.min)
        #expect(IntegerValue(UInt64.max).int64Value == nil)
        #expect(IntegerValue(-1) < IntegerValue(UInt64.max))
    }

    @Test("dates reject impossible values and convert both ways")
    func dates() throws {
        #expect(DateValue.parse(Array("2024-02-29T12:00:00Z".utf8)) != nil)
        #expect(DateValue.parse(Array("2023-02-29T12:00:00Z".utf8)) == nil)
        #expect(DateValue.parse(Array("1900-02-29T12:00:00Z".utf8)) == nil)
        #expect(DateValue.parse(Array("2000-02-29T12:00:00Z".utf8)) != nil)
        #expect(DateValue.parse(Array("2023-13-01T00:00:00Z".utf8)) == nil)
        #expect(DateValue.parse(Array("2023-04-31T00:00:00Z".utf8)) == nil)
        #expect(DateValue.parse(Array("2023-01-01T00:60:00Z".utf8)) == nil)
        #expect(DateValue.parse(Array("2023-01-01T00:00:00".utf8)) == nil)
        let date = try #require(DateValue.parse(Array("2004-10-26T10:33:33Z".utf8)))
        #expect(date.date == Date(timeIntervalSince1970: 1_098_786_813))
        #expect(DateValue(date.date) == date)
        let old = try #require(DateValue.parse(Array("1869-01-03T08:16:32Z".utf8)))
        #expect(DateValue(old.date)?.description == "1869-01-03T08:16:32Z")
    }

    @Test("a quoted value shows what prints as nothing: zero-width and bidirectional characters, the byte-order mark, C1 controls")
    func invisibleCharactersAreShown() {
        #expect(Value.quote("Exact\u{200B}Match") == #""Exact\u200BMatch""#)
        #expect(Value.quote("a\u{202E}b\u{FEFF}c\u{2028}d\u{85}e\u{7F}") == #""a\u202Eb\uFEFFc\u2028d\u0085e\u007F""#)
        // Letters and emoji print as themselves (a zero-width joiner inside an emoji sequence is shown as \u200D).
        #expect(Value.quote("ünï 🎉") == #""ünï 🎉""#)
        #expect(Value.quote("line\nbreak") == #""line\nbreak""#)
    }

    @Test("a quoted value in a diagnostic is cut short with its size; so is a long key in a path")
    func longValuesAreCutShort() {
        let long = String(repeating: "A", count: 5_000_000)
        #expect(Value.quote(long) == "\"" + String(repeating: "A", count: 100) + "…\" (5000000 bytes)")
        #expect(Value.quote(String(repeating: "é", count: 100)) == "\"" + String(repeating: "é", count: 100) + "\"")
        #expect(Value.quote(String(repeating: "é", count: 101)) == "\"" + String(repeating: "é", count: 100) + "…\" (202 bytes)")
        let path = ValuePath.root.appending(key: "Section").appending(key: String(repeating: "K", count: 200))
        #expect(path.description == "Section[\"" + String(repeating: "K", count: 100) + "…\" (200 bytes)]")
        #expect(Value.describe(number: 2) == "2")
        #expect(Value.describe(number: 1e20) == "1e+20")
        #expect(Value.describe(number: -0.5) == "-0.5")
    }

    @Test("paths print as key paths and JSON pointers")
    func paths() {
        let path = ValuePath([.key("Restoration"), .key("Pipeline"), .index(2), .key("a/b~c"), .key("x.y")])
        #expect(path.description == "Restoration.Pipeline[2][\"a/b~c\"][\"x.y\"]")
        #expect(path.jsonPointer == "/Restoration/Pipeline/2/a~1b~0c/x.y")
        #expect(ValuePath.root.description == "(root)")
        #expect(ValuePath.root.jsonPointer == "")
    }

    @Test("equality keeps types and order apart, ignores locations")
    func equality() {
        #expect(Value.integer(1) != Value.real(1))
        #expect(Value.bool(true) != Value.integer(1))
        #expect(Value.dictionary([("a", .integer(1)), ("b", .integer(2))]) != Value.dictionary([("b", .integer(2)), ("a", .integer(1))]))
        #expect(Value(.string("x"), location: SourceLocation(line: 3)) == Value.string("x"))
        #expect(Value(.string("x"), location: SourceLocation(line: 3, column: 4)).location == SourceLocation(line: 3, column: 4))
        #expect(Value.string("x").location == nil)
    }

    @Test("strings and keys are equal when their Unicode scalars are, not when Swift's String == would have them")
    func scalarEquality() {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed)  // Swift: canonically equivalent
        #expect(Value.string(composed) != Value.string(decomposed))
        #expect(Value.Key(composed) != Value.Key(decomposed))
        #expect(Value.Key(composed) == Value.Key(String("\(composed)!".dropLast())))
        #expect(Value.string("") == Value.string(""))
        #expect(Value.string("a") != Value.string(""))
        #expect(Value.string("ab") != Value.string("ac"))
        let long = String(repeating: "Ω", count: 40)
        #expect(Value.Key(long) == Value.Key(String(repeating: "Ω", count: 40)))
        #expect(Value.Key(long) != Value.Key(String(repeating: "Ω", count: 39) + "O"))
    }
}

/// Names that print alike print differently where an operator chooses between them.
@Suite("Look-alike text", .timeLimit(.minutes(10)))
struct DistinctTextTests {
    @Test("a composed and a decomposed é, a zero-width space and a no-break space each show, escaped; plain text stays as it is")
    func lookAlikes() {
        #expect(TerminalText.distinct("café") == "café")
        #expect(TerminalText.distinct("cafe\u{301}") == "cafe\\u{301}")
        #expect(TerminalText.distinct("alice\u{200B}") == "alice\\u{200b}")
        #expect(TerminalText.distinct("al ice") == "al ice")
        #expect(TerminalText.distinct("al\u{A0}ice") == "al\\u{a0}ice")
        #expect(TerminalText.distinct("al\u{1B}[2Jice") == "al\\u{1b}[2Jice")
        #expect(TerminalText.distinct("名前") == "名前")
    }
}
