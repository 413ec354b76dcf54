import Foundation
import Testing
import TimelineEnginePropertyList
import TimelineEngineValueTree

/// Each rule the reader enforces, with the exact message a user sees.
@Suite("Plist reader strictness", .timeLimit(.minutes(10)))
struct StrictnessTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let document: String
        let line: Int
        let message: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "key without a value", document: "<plist><dict>\n<key>a</key>\n</dict></plist>", line: 2,
            message: "key \"a\" has no value"),
        Case(
            name: "key followed by another key", document: "<plist><dict>\n<key>a</key>\n<key>b</key><true/></dict></plist>", line: 2,
            message: "key \"a\" has no value (another <key> follows at line 3)"),
        Case(
            name: "non-key element inside dict", document: "<plist><dict>\n<string>x</string></dict></plist>", line: 2,
            message: "expected <key> inside <dict>, found <string>"),
        Case(
            name: "key inside array", document: "<plist><array>\n<key>a</key></array></plist>", line: 2,
            message: "<key> is not allowed inside <array>"),
        Case(
            name: "duplicate keys", document: "<plist><dict>\n<key>a</key><true/>\n<key>a</key><false/></dict></plist>", line: 3,
            message: "duplicate key \"a\" (first at line 2)"),
        Case(
            name: "two root objects", document: "<plist>\n<true/>\n<false/></plist>", line: 3,
            message: "more than one root object in <plist>: found <false> after the first value"),
        Case(
            name: "empty plist", document: "<plist>\n</plist>", line: 1,
            message: "empty <plist>: it must hold exactly one value"),
        Case(
            name: "unknown tag", document: "<plist>\n<integr>1</integr></plist>", line: 2,
            message: "unknown tag <integr>"),
        Case(
            name: "true with content", document: "<plist><true>yes</true></plist>", line: 1,
            message: "<true/> must be empty, found \"yes\""),
        Case(
            name: "integer above UInt64.max", document: "<plist><integer>18446744073709551616</integer></plist>", line: 1,
            message: "integer 18446744073709551616 is out of range [-9223372036854775808, 18446744073709551615]"),
        Case(
            name: "integer below Int64.min", document: "<plist><integer>-9223372036854775809</integer></plist>", line: 1,
            message: "integer -9223372036854775809 is out of range [-9223372036854775808, 18446744073709551615]"),
        Case(
            name: "integer with spaces", document: "<plist><integer> 42 </integer></plist>", line: 1,
            message: "invalid integer \" 42 \": expected decimal digits or 0x followed by hex digits"),
        Case(name: "empty integer", document: "<plist><integer/></plist>", line: 1, message: "empty <integer>"),
        Case(
            name: "inf real", document: "<plist><real>inf</real></plist>", line: 1,
            message: "invalid real \"inf\": expected a finite decimal number"),
        Case(
            name: "nan real", document: "<plist><real>nan</real></plist>", line: 1,
            message: "invalid real \"nan\": expected a finite decimal number"),
        Case(
            name: "real overflowing to infinity", document: "<plist><real>1e999</real></plist>", line: 1,
            message: "invalid real \"1e999\": expected a finite decimal number"),
        Case(
            name: "real underflowing to zero", document: "<plist><real>1e-400</real></plist>", line: 1,
            message: "invalid real \"1e-400\": too small to represent; it would read as 0"),
        Case(
            name: "impossible date", document: "<plist><date>2023-02-29T10:00:00Z</date></plist>", line: 1,
            message: "invalid date \"2023-02-29T10:00:00Z\": expected a real UTC date and time as YYYY-MM-DDTHH:MM:SSZ"),
        Case(
            name: "hour 24", document: "<plist><date>2023-01-01T24:00:00Z</date></plist>", line: 1,
            message: "invalid date \"2023-01-01T24:00:00Z\": expected a real UTC date and time as YYYY-MM-DDTHH:MM:SSZ"),
        Case(
            name: "bad base64 character", document: "<plist><data>QUJD*A==</data></plist>", line: 1,
            message: "invalid base64 in <data>: unexpected character '*'"),
        Case(
            name: "truncated base64", document: "<plist><data>QUJDR</data></plist>", line: 1,
            message: "invalid base64 in <data>: the text does not end on a complete group of four characters"),
        Case(
            name: "text inside dict", document: "<plist><dict>oops</dict></plist>", line: 1,
            message: "unexpected text \"oops\" inside <dict>"),
        Case(
            name: "element inside string", document: "<plist><string>a<true/></string></plist>", line: 1,
            message: "<string> cannot contain an element (found <true>)"),
        Case(
            name: "truncated document", document: "<plist>\n<dict>\n<key>a</key>", line: 3,
            message: "unexpected end of the document: <dict> opened at line 2 is not closed"),
        Case(name: "empty document", document: "", line: 1, message: "no root element: the document is empty or not XML"),
        Case(name: "not XML", document: "hello", line: 1, message: "no root element: the document is empty or not XML"),
        Case(
            name: "mismatched tags", document: "<plist><dict>\n</array></plist>", line: 2,
            message: "Opening and ending tag mismatch: dict line 1 and array"),
    ]

    @Test("is rejected with the exact message and line", arguments: cases)
    func rejected(_ testCase: Case) {
        let error = #expect(throws: PropertyListError.self) {
            try PropertyListReader().read(Data(testCase.document.utf8))
        }
        #expect(error?.message == testCase.message)
        #expect(error?.location?.line == testCase.line)
    }

    @Test("checking without building values reports exactly what reading reports", arguments: cases)
    func checkMatchesRead(_ testCase: Case) {
        let error = #expect(throws: PropertyListError.self) {
            try PropertyListReader().check(Data(testCase.document.utf8))
        }
        #expect(error?.message == testCase.message)
        #expect(error?.location?.line == testCase.line)
    }

    @Test("accepts the full integer range and hexadecimal")
    func integerRange() throws {
        let document = """
            <plist><array><integer>-9223372036854775808</integer><integer>18446744073709551615</integer>
            <integer>0x1F</integer><integer>0123</integer><integer>+7</integer></array></plist>
            """
        let values = try PropertyListReader().read(Data(document.utf8)).arrayValue ?? []
        #expect(values.map(\.description) == ["-9223372036854775808", "18446744073709551615", "31", "123", "7"])
    }

    @Test("reads every type")
    func everyType() throws {
        let document = """
            <plist><dict><key>s</key><string>a &amp; b</string><key>i</key><integer>-5</integer>
            <key>r</key><real>2.5e3</real><key>t</key><true/><key>f</key><false/>
            <key>d</key><date>2024-02-29T23:59:59Z</date><key>b</key><data> QUJD
             REVG </data><key>e</key><data/><key>a</key><array/><key>x</key><dict/><key/><string/></dict></plist>
            """
        let value = try PropertyListReader().read(Data(document.utf8))
        #expect(value["s"] == .string("a & b"))
        #expect(value["i"]?.integerValue == IntegerValue(Int64(-5)))
        #expect(value["r"] == .real(2500))
        #expect(value["t"] == .bool(true))
        #expect(value["f"] == .bool(false))
        #expect(value["d"]?.description == "2024-02-29T23:59:59Z")
        #expect(value["b"] == Value(.data(Data("ABCDEF".utf8))))
        #expect(value["e"] == Value(.data(Data())))
        #expect(value["a"] == .array([]))
        #expect(value["x"]?.dictionaryValue?.isEmpty == true)
        #expect(value[""] == .string(""))
    }

    @Test("disputed: a leading zero is decimal, as CPython and CoreFoundation read it")
    func leadingZero() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/plist-corpus/disputed/cpython-integer-leading-zero.plist")
        #expect(try PropertyListReader().read(contentsOf: url).integerValue == IntegerValue(Int64(123)))
    }

    @Test("disputed: the repeated empty key is a duplicate key, as in any other dict")
    func emptyKeys() {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/plist-corpus/disputed/libplist-empty_keys.plist")
        let error = #expect(throws: PropertyListError.self) { try PropertyListReader().read(contentsOf: url) }
        #expect(error?.message.hasPrefix("duplicate key \"\"") == true)
    }

    @Test("a comment inside a key is ignored, and <key/> is the empty key")
    func commentInKey() throws {
        let value = try PropertyListReader().read(Data("<plist><dict><key>a<!-- c -->b</key><true/><key/><false/></dict></plist>".utf8))
        #expect(value["ab"] == .bool(true))
        #expect(value[""] == .bool(false))
    }
}
