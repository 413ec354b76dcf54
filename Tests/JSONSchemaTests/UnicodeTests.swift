import Foundation
import Testing
import TimelineEngineJSONSchema
import TimelineEngineJSONText
import TimelineEngineValueTree

/// JSON Schema, JSON and property lists compare strings by Unicode scalars (code points): "é"
/// (U+00E9) and "e" + U+0301 look alike and are canonically equivalent, so Swift's `String ==`
/// takes them for one, yet they are two different strings and two different keys.
@Suite("Strings compare by Unicode scalars", .timeLimit(.minutes(10)))
struct UnicodeTests {
    static let composed = "\u{E9}"  // é
    static let decomposed = "e\u{301}"  // e + combining acute accent

    static func valid(_ schema: String, _ instance: String) throws -> Bool {
        try JSONSchema(json: Data(schema.utf8)).validate(JSONReader().read(instance)).isValid
    }

    @Test("the two spellings differ for Swift's canonical equivalence, and for us")
    func premise() {
        #expect(Self.composed == Self.decomposed)  // Swift's String ==
        #expect(Value.string(Self.composed) != Value.string(Self.decomposed))
        #expect(Value.Key(Self.composed) != Value.Key(Self.decomposed))
        #expect(Value.string(Self.composed) == Value.string("\u{E9}"))
    }

    @Test("const, enum and uniqueItems tell the spellings apart")
    func validator() throws {
        #expect(try Self.valid(#"{"const": "\u00e9"}"#, #""\u00e9""#))
        #expect(try !Self.valid(#"{"const": "\u00e9"}"#, #""e\u0301""#))
        #expect(try !Self.valid(#"{"enum": ["\u00e9", "x"]}"#, #""e\u0301""#))
        #expect(try Self.valid(#"{"uniqueItems": true}"#, #"["\u00e9", "e\u0301"]"#))
        #expect(try !Self.valid(#"{"uniqueItems": true}"#, #"["\u00e9", "\u00e9"]"#))
        #expect(try Self.valid(#"{"uniqueItems": true}"#, #"[{"\u00e9": 1}, {"e\u0301": 1}]"#))
    }

    @Test("property names: properties, required and additionalProperties match by scalars")
    func propertyNames() throws {
        let schema = #"{"properties": {"caf\u00e9": {"type": "integer"}}, "required": ["caf\u00e9"], "additionalProperties": false}"#
        #expect(try Self.valid(schema, #"{"caf\u00e9": 1}"#))
        #expect(try !Self.valid(schema, #"{"cafe\u0301": 1}"#))  // another key: required is missing, and it is not allowed
        let issues = try JSONSchema(json: Data(schema.utf8)).validate(JSONReader().read(#"{"cafe\u0301": 1}"#)).issues.map(\.message)
        #expect(issues == ["missing required key \"café\"", "unknown key \"café\"; did you mean \"café\"? Valid keys: café"])
    }

    @Test("a JSON object may hold both spellings as two keys, and a repeated spelling is still a duplicate")
    func jsonKeys() throws {
        let value = try JSONReader().read(#"{"\u00e9": 1, "e\u0301": 2}"#)
        #expect(value.dictionaryValue?.count == 2)
        #expect(value[Self.composed] == .integer(1))
        #expect(value[Self.decomposed] == .integer(2))
        #expect(throws: JSONSyntaxError.self) { try JSONReader().read(#"{"\u00e9": 1, "\u00e9": 2}"#) }
    }
}
