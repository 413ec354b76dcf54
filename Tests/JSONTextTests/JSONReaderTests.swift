import Foundation
import Testing
import TimelineEngineJSONText
import TimelineEngineValueTree

@Suite("JSON reader and writer", .timeLimit(.minutes(10)))
struct JSONReaderTests {
    @Test("values keep their line and column")
    func locations() throws {
        let value = try JSONReader().read("{\n  \"a\": [1, \"é\", {\"b\": null}],\n  \"c\": true\n}")
        #expect(value.location == SourceLocation(line: 1, column: 1))
        #expect(value.dictionaryValue?["a"]?.keyLocation == SourceLocation(line: 2, column: 3))
        let list = try #require(value["a"]?.arrayValue)
        #expect(list[0].location == SourceLocation(line: 2, column: 9))
        #expect(list[2].location == SourceLocation(line: 2, column: 17))
        #expect(value["c"]?.location == SourceLocation(line: 3, column: 8))
    }

    @Test("any JSON value may be the root")
    func scalars() throws {
        #expect(try JSONReader().read("  42 ") == .integer(42))
        #expect(try JSONReader().read("\"x\"") == .string("x"))
        #expect(try JSONReader().read("-0.5e1") == .real(-5))
        #expect(try JSONReader().read("18446744073709551615").integerValue == IntegerValue(UInt64.max))
        #expect(try JSONReader().read("18446744073709551616") == .real(18_446_744_073_709_551_616))
        #expect(try JSONReader().read("\"\\ud83d\\ude00\\n\"") == .string("😀\n"))
    }

    @Test("a string with no escape is read in place, one with escapes through a buffer: the same text, the same errors")
    func stringsWithAndWithoutEscapes() throws {
        for length in 0..<20 {
            let plain = String(repeating: "é", count: length)
            #expect(try JSONReader().read("\"\(plain)\"") == .string(plain))
            #expect(try JSONReader().read("\"\(plain)\\t\(plain)\"") == .string(plain + "\t" + plain))
        }
        for bytes in [Array("\"abc".utf8) + [0xC3, 0x28] + Array("\"".utf8), Array("\"a\\n".utf8) + [0xFF] + Array("\"".utf8)] {
            let error = #expect(throws: JSONSyntaxError.self) { try JSONReader().read(Data(bytes)) }
            #expect(error?.message == "string is not valid UTF-8")
            #expect(error?.location == SourceLocation(line: 1, column: 1))
        }
        let control = #expect(throws: JSONSyntaxError.self) { try JSONReader().read("\"ab\u{01}\"") }
        #expect(control?.message == "unescaped control character U+0001 in string")
        #expect(control?.location == SourceLocation(line: 1, column: 4))
    }

    struct Bad: CustomTestStringConvertible, Sendable {
        let text: String
        let message: String
        let line: Int
        let column: Int
        var testDescription: String { text }
    }

    static let bad: [Bad] = [
        Bad(text: "", message: "empty document: expected a JSON value", line: 1, column: 1),
        Bad(text: "{\"a\": 1,}", message: "trailing comma before '}'", line: 1, column: 9),
        Bad(text: "[1,\n2,]", message: "trailing comma before ']'", line: 2, column: 3),
        Bad(text: "{\"a\" 1}", message: "expected ':' after key \"a\", found '1'", line: 1, column: 6),
        Bad(text: "{\"a\": 1,\n \"a\": 2}", message: "duplicate key \"a\" (first at line 1)", line: 2, column: 2),
        Bad(text: "[01]", message: "invalid number: leading zeros are not allowed", line: 1, column: 2),
        Bad(text: "[NaN]", message: "unexpected 'N': expected a JSON value", line: 1, column: 2),
        Bad(text: "[tru]", message: "invalid literal: expected 'true'", line: 1, column: 2),
        Bad(text: "\"abc", message: "unterminated string", line: 1, column: 1),
        Bad(text: "\"\\ud800\"", message: "lone high surrogate \\uD800 in string", line: 1, column: 2),
        Bad(text: "[1] 2", message: "unexpected '2' after the end of the JSON value", line: 1, column: 5),
        Bad(text: "1e999", message: "number 1e999 is out of range", line: 1, column: 1),
        Bad(text: "[0.0, 1e-400]", message: "number 1e-400 is too small to represent; it would read as 0", line: 1, column: 7),
        Bad(text: "{\"a\": [1, 2", message: "unexpected end of input: expected ',' or ']' in array", line: 1, column: 12),
    ]

    @Test("malformed JSON is reported with the exact message, line and column", arguments: bad)
    func malformed(_ bad: Bad) {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONReader().read(bad.text) }
        #expect(error?.message == bad.message)
        #expect(error?.location == SourceLocation(line: bad.line, column: bad.column))
    }

    @Test("nesting is capped")
    func depth() {
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let error = #expect(throws: JSONSyntaxError.self) { try JSONReader().read(deep) }
        #expect(error?.message == "nesting too deep: more than 512 levels of arrays and objects")
        #expect(throws: Never.self) { try JSONReader(maximumDepth: 1000).read(deep) }
    }

    @Test("the writer refuses infinity and NaN, which JSON cannot hold")
    func nonFinite() {
        for number in [Double.infinity, -Double.infinity, Double.nan] {
            let error = #expect(throws: JSONWriter.UnrepresentableValue.self) {
                try JSONWriter().write(.dictionary([("x", .array([.real(1), .real(number)]))]))
            }
            #expect(error?.description == "non-finite number \(number) at x[1] has no JSON representation")
        }
        #expect((try? JSONWriter().write(.array([.real(0), .real(.leastNonzeroMagnitude)]))) == "[0.0,5e-324]")
    }

    @Test("writer: compact like plutil, pretty with two spaces, order kept")
    func writer() throws {
        let value = Value.dictionary([("b", .array([.integer(1), .real(0.5), .null])), ("a", .string("\"\n\u{1}"))])
        #expect(try JSONWriter().write(value) == "{\"b\":[1,0.5,null],\"a\":\"\\\"\\n\\u0001\"}")
        #expect(try JSONWriter(style: .pretty).write(value) == "{\n  \"b\": [\n    1,\n    0.5,\n    null\n  ],\n  \"a\": \"\\\"\\n\\u0001\"\n}\n")
        let error = #expect(throws: JSONWriter.UnrepresentableValue.self) {
            try JSONWriter().write(.dictionary([("d", Value(.data(Data([1]))))]))
        }
        #expect(error?.description == "data at d has no JSON representation")
    }
}
