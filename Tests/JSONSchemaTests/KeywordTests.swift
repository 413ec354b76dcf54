import Foundation
import Testing
import TimelineEngineJSONSchema
import TimelineEngineJSONText
import TimelineEngineValueTree

/// Keywords the copied test-suite files do not cover, and the messages users see.
@Suite("JSON Schema keywords and messages", .timeLimit(.minutes(10)))
struct KeywordTests {
    static func issues(_ schema: String, _ instance: String) throws -> [String] {
        try JSONSchema(json: Data(schema.utf8)).validate(JSONReader().read(instance)).issues.map(\.description)
    }

    @Test("a value nested 500 deep under a recursive schema is evaluated without overflowing the stack (a crash before)")
    func deepInstance() throws {
        let schema = try JSONSchema(json: Data(##"{"type": "array", "items": {"$ref": "#"}}"##.utf8))
        let shallow = try JSONReader().read(String(repeating: "[", count: 200) + String(repeating: "]", count: 200))
        #expect(schema.validate(shallow).isValid)
        let deep = try JSONReader().read(String(repeating: "[", count: 500) + String(repeating: "]", count: 500))
        let issues = schema.validate(deep).issues
        #expect(issues.count == 1)
        #expect(
            issues.first?.message == "the evaluation nests more than 512 levels deep: a reference cycle, or a value nested too deep for this schema")
    }

    @Test("did you mean: a typo is found, a word of very different length is skipped unmeasured")
    func suggestionsForLongWords() {
        let keys = ["FallbackStrategy", "MaxHistorySize", "AutoSaveInterval"]
        #expect(Suggestions.closest(to: "FallbackStratgy", among: keys) == "FallbackStrategy")
        #expect(Suggestions.closest(to: "fallbackstrategy", among: keys) == "FallbackStrategy")
        #expect(Suggestions.closest(to: "Fallback", among: keys) == nil)
        // 5 MB: the length difference rules every candidate out before any distance is measured.
        #expect(Suggestions.closest(to: String(repeating: "F", count: 5_000_000), among: keys) == nil)
    }

    @Test("const, with 1 == 1.0 and false ≠ 0")
    func const() throws {
        #expect(try Self.issues("{\"const\": 1}", "1.0").isEmpty)
        #expect(try Self.issues("{\"const\": false}", "0") == ["(root): must be false, found integer 0"])
    }

    @Test("exclusive bounds and multipleOf")
    func numbers() throws {
        let schema = "{\"exclusiveMinimum\": 0, \"exclusiveMaximum\": 10, \"multipleOf\": 0.5}"
        #expect(try Self.issues(schema, "5.5").isEmpty)
        #expect(try Self.issues(schema, "0") == ["(root): 0 must be greater than 0 (allowed: > 0 and < 10)"])
        #expect(try Self.issues(schema, "10") == ["(root): 10 must be less than 10 (allowed: > 0 and < 10)"])
        #expect(try Self.issues(schema, "0.7") == ["(root): 0.7 is not a multiple of 0.5"])
        #expect(try Self.issues("{\"multipleOf\": 0.0001}", "0.0075").isEmpty)
        #expect(try Self.issues("{\"multipleOf\": 0.0001}", "0.00751") == ["(root): 0.00751 is not a multiple of 0.0001"])
        #expect(try Self.issues("{\"multipleOf\": 3}", "18446744073709551615").isEmpty)
        #expect(
            try Self.issues("{\"type\": \"integer\", \"multipleOf\": 0.123456789}", "1e308") == ["(root): 1e+308 is not a multiple of 0.123456789"])
    }

    @Test("pattern is an unanchored ECMA-style regular expression")
    func pattern() throws {
        #expect(try Self.issues("{\"pattern\": \"^[a-z]+$\"}", "\"abc\"").isEmpty)
        #expect(try Self.issues("{\"pattern\": \"b\"}", "\"abc\"").isEmpty)
        #expect(try Self.issues("{\"pattern\": \"^[a-z]+$\"}", "\"aBc\"") == ["(root): \"aBc\" does not match the pattern \"^[a-z]+$\""])
    }

    @Test("lengths count characters, not bytes")
    func lengths() throws {
        #expect(try Self.issues("{\"maxLength\": 2}", "\"🙂🙂\"").isEmpty)
        #expect(try Self.issues("{\"minLength\": 3}", "\"ab\"") == ["(root): string is 2 characters long, shorter than the minimum 3"])
    }

    @Test("array keywords")
    func arrays() throws {
        let schema =
            "{\"prefixItems\": [{\"type\": \"string\"}], \"items\": {\"type\": \"integer\"}, \"minItems\": 2, \"maxItems\": 3, \"uniqueItems\": true}"
        #expect(try Self.issues(schema, "[\"a\", 1, 2]").isEmpty)
        #expect(try Self.issues(schema, "[\"a\"]") == ["(root): has 1 item, fewer than the minimum 2"])
        #expect(
            try Self.issues(schema, "[1, 1.0]") == [
                "[0]: expected string, found integer 1", "(root): items 0 and 1 are equal; items must be unique",
            ])
        #expect(try Self.issues(schema, "[\"a\", 1, 2, 3]") == ["(root): has 4 items, more than the maximum 3"])
        #expect(try Self.issues("{\"prefixItems\": [true], \"items\": false}", "[1, 2]") == ["[1]: no item is allowed at index 1 (at most 1 item)"])
        #expect(try Self.issues("{\"contains\": {\"const\": 3}}", "[1, 2]") == ["(root): no item matches the \"contains\" schema"])
    }

    @Test("anyOf, oneOf, not and if/then/else")
    func applicators() throws {
        let anyOf = "{\"anyOf\": [{\"type\": \"string\"}, {\"type\": \"integer\", \"minimum\": 5}]}"
        #expect(try Self.issues(anyOf, "7").isEmpty)
        #expect(
            try Self.issues(anyOf, "3") == [
                "(root): matches none of the allowed forms: (1) expected string, found integer 3; (2) 3 is less than the minimum 5 (allowed: ≥ 5)"
            ])
        let oneOf = "{\"oneOf\": [{\"type\": \"integer\"}, {\"minimum\": 2}]}"
        #expect(try Self.issues(oneOf, "1").isEmpty)
        #expect(try Self.issues(oneOf, "3") == ["(root): matches more than one of the exclusive forms (oneOf 0 and 1)"])
        #expect(try Self.issues("{\"not\": {\"type\": \"null\"}}", "null") == ["(root): null matches a schema it must not match"])
        let conditional =
            "{\"if\": {\"properties\": {\"kind\": {\"const\": \"file\"}}}, \"then\": {\"required\": [\"path\"]}, \"else\": {\"required\": [\"url\"]}}"
        #expect(try Self.issues(conditional, "{\"kind\": \"file\", \"path\": \"/x\"}").isEmpty)
        #expect(try Self.issues(conditional, "{\"kind\": \"file\"}") == ["(root): missing required key \"path\""])
        #expect(try Self.issues(conditional, "{\"kind\": \"web\"}") == ["(root): missing required key \"url\""])
    }

    @Test("local $ref and $defs, and recursion")
    func references() throws {
        let schema = """
            {"$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}, "v": {"type": "integer"}}}},
             "$ref": "#/$defs/node"}
            """
        #expect(try Self.issues(schema, "{\"v\": 1, \"next\": {\"v\": 2, \"next\": {\"v\": 3}}}").isEmpty)
        #expect(try Self.issues(schema, "{\"next\": {\"next\": {\"v\": \"x\"}}}") == ["next.next.v: expected integer, found string \"x\""])
        #expect(throws: SchemaError.self) { try JSONSchema(json: Data("{\"$ref\": \"#/$defs/missing\"}".utf8)) }
        #expect(throws: SchemaError.self) { try JSONSchema(json: Data("{\"$ref\": \"other.json\"}".utf8)) }
    }

    @Test("unknown keys suggest the closest known one")
    func additionalProperties() throws {
        let schema = "{\"properties\": {\"Enabled\": {}, \"Window\": {}}, \"additionalProperties\": false}"
        #expect(try Self.issues(schema, "{\"Windw\": 1}") == ["Windw: unknown key \"Windw\"; did you mean \"Window\"? Valid keys: Enabled, Window"])
        #expect(try Self.issues(schema, "{\"Zzzzzz\": 1}") == ["Zzzzzz: unknown key \"Zzzzzz\". Valid keys: Enabled, Window"])
    }

    @Test("deprecated is a warning, not an error")
    func deprecated() throws {
        let result = try JSONSchema(json: Data("{\"properties\": {\"Old\": {\"deprecated\": true}}}".utf8)).validate(
            JSONReader().read("{\"Old\": 1}"))
        #expect(result.isValid)
        #expect(result.warnings.map(\.description) == ["Old: key \"Old\" is deprecated"])
    }

    @Test("schemas of the wrong shape are rejected")
    func badSchemas() {
        for text in [
            "{\"type\": \"integr\"}", "{\"minimum\": \"1\"}", "{\"required\": [1]}", "{\"pattern\": \"(\"}",
            "{\"allOf\": []}", "{\"multipleOf\": 0}", "[]",
        ] {
            #expect(throws: SchemaError.self, "\(text)") { try JSONSchema(json: Data(text.utf8)) }
        }
    }

    @Test("a schema of the wrong shape is refused with the JSON Pointer of its keyword and a message")
    func badSchemaMessages() {
        let cases: [(schema: String, path: String, message: String)] = [
            (
                #"{"properties": {"a/b": {"allOf": [true, {"type": "nope"}]}}}"#, "/properties/a~1b/allOf/1/type",
                #""type" must name one of array, boolean, integer, null, number, object, string"#
            ),
            (#"{"$defs": {"x~y": {"minLength": -1}}}"#, "/$defs/x~0y/minLength", #""minLength" must be a non-negative integer"#),
            (#"{"patternProperties": {"(": {}}}"#, "/patternProperties", #"pattern "(" is not a valid regular expression"#),
            (##"{"items": {"$ref": "#/$defs/missing"}}"##, "/items/$ref", ##""$ref" "#/$defs/missing" does not resolve to a schema"##),
            (#"{"not": {"anyOf": []}}"#, "/not/anyOf", #""anyOf" must be a non-empty array of schemas"#),
            (#"{"if": [1]}"#, "/if", "a schema must be an object or a boolean, found array"),
            ("[1]", "", "a schema must be an object or a boolean, found array"),
        ]
        for (schema, path, message) in cases {
            #expect(throws: SchemaError(schemaPath: path, message: message, location: nil), "\(schema)") {
                do {
                    _ = try JSONSchema(json: Data(schema.utf8))
                } catch let error as SchemaError {
                    throw SchemaError(schemaPath: error.schemaPath, message: error.message, location: nil)
                }
            }
        }
    }

    @Test("a reference used many times is resolved once and stays correct; escaped and percent-encoded pointers resolve")
    func repeatedAndEscapedReferences() throws {
        let schema = ##"""
            {"$defs": {"a/b": {"type": "string"}, "c d": {"type": "integer"}, "e~f": {"minimum": 1}},
             "properties": {"x": {"$ref": "#/$defs/a~1b"}, "y": {"$ref": "#/$defs/a~1b"}, "z": {"$ref": "#/$defs/c%20d"},
                            "w": {"$ref": "#/$defs/e~0f"}}}
            """##
        #expect(try Self.issues(schema, #"{"x": "1", "y": "2", "z": 3, "w": 2}"#).isEmpty)
        #expect(
            try Self.issues(schema, #"{"x": 1, "y": "2", "z": "3", "w": 0}"#)
                == [
                    "x: expected string, found integer 1", "z: expected integer, found string \"3\"",
                    "w: 0 is less than the minimum 1 (allowed: ≥ 1)",
                ])
    }

    @Test("did-you-mean distance")
    func suggestions() {
        #expect(Suggestions.closest(to: "FallbackStratgy", among: ["Enabled", "FallbackStrategy"]) == "FallbackStrategy")
        #expect(Suggestions.closest(to: "fallbackstrategy", among: ["FallbackStrategy"]) == "FallbackStrategy")
        #expect(Suggestions.closest(to: "Xyz", among: ["FallbackStrategy"]) == nil)
        #expect(Suggestions.editDistance("ab", "ba") == 1)
    }
}
