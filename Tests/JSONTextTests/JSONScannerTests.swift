import Foundation
import Testing
import TimelineEngineJSONText

@Suite(.timeLimit(.minutes(10))) struct JSONScannerTests {
    /// Runs `body` on a scanner over `text`.
    func scan<T>(_ text: String, _ body: (inout JSONScanner) throws -> T) throws -> T {
        var bytes = Array(text.utf8)
        return try bytes.withUnsafeMutableBufferPointer { buffer in
            var scanner = JSONScanner(UnsafeBufferPointer(buffer))
            return try body(&scanner)
        }
    }

    func firstError(_ text: String) -> String {
        do {
            try scan(text) { scanner in
                try scanner.skipValue()
                try scanner.end()
            }
            return "ok"
        } catch {
            return "\(error)"
        }
    }

    @Test func walksObjectsAndArrays() throws {
        let result = try scan(#"{"a": [1, -2.5e2, true, null], "b": "x\"y\u00e9\ud83c\udf89", "long": "abcdefghijklmnopqrstuvwxyz"}"#) { scanner in
            var seen: [String] = []
            try scanner.beginObject()
            while let key = try scanner.nextKey() {
                seen.append(String(decoding: key, as: UTF8.self))
                if key.spells("a") {
                    try scanner.beginArray()
                    var values: [String] = []
                    while try scanner.nextElement() {
                        switch try scanner.peek() {
                        case .number: values.append("\(try scanner.number())")
                        case .bool: values.append("\(try scanner.bool())")
                        default: values.append(scanner.null() ? "null" : "?")
                        }
                    }
                    seen.append(values.joined(separator: " "))
                } else {
                    seen.append(try scanner.string())
                }
            }
            try scanner.end()
            return seen
        }
        #expect(result == ["a", "1.0 -250.0 true null", "b", "x\"yé🎉", "long", "abcdefghijklmnopqrstuvwxyz"])
    }

    @Test func isAsStrictAsTheReader() {
        #expect(firstError("[1,]") == "1:4: expected a value, found ']'")
        #expect(firstError("{\"a\":1,}") == "1:8: expected a string key, found '}'")
        #expect(firstError("[01]") == "1:2: invalid number: leading zeros are not allowed")
        #expect(firstError("\"tab\there\"") == "1:5: unescaped control character U+0009 in string")
        #expect(firstError(#""\ud800""#) == "1:2: lone high surrogate \\uD800 in string")
        #expect(firstError("\"abc") == "1:1: unterminated string")
        #expect(firstError(#""\q""#) == "1:2: invalid escape '\\q' in string")
        // A control character after the backslash is named, never printed (found by fuzz-headers).
        #expect(firstError("\"\\\u{0C}\"") == "1:2: invalid escape: '\\' followed by the byte 0x0C in string")
        #expect(firstError("[1] 2") == "1:5: unexpected '2' after the value")
        #expect(firstError(String(repeating: "[", count: 600)) == "1:513: nesting deeper than 512 levels")
        #expect(firstError("[1e-400]") == "1:2: number 1e-400 is too small to represent; it would read as 0")
        #expect(firstError("[1e400]") == "1:2: number 1e400 is out of range")
    }

    @Test func rejectsInvalidUTF8InStrings() throws {
        var bytes: [UInt8] = Array("\"abcdefgh".utf8) + [0xC3, 0x28] + Array("\"".utf8)
        let message = bytes.withUnsafeMutableBufferPointer { buffer -> String in
            var scanner = JSONScanner(UnsafeBufferPointer(buffer))
            do {
                _ = try scanner.string()
                return "ok"
            } catch {
                return "\(error)"
            }
        }
        #expect(message == "1:1: string is not valid UTF-8")
    }

    @Test func findsQuotesAndEscapesAtEveryPositionOfAWord() throws {
        for length in 0..<20 {
            let plain = String(repeating: "a", count: length)
            #expect(try scan("\"\(plain)\"") { try $0.string() } == plain)
            #expect(try scan("\"\(plain)\\n\(plain)\"") { try $0.string() } == plain + "\n" + plain)
            #expect(firstError("\"\(plain)\u{01}\"") == "1:\(length + 2): unescaped control character U+0001 in string")
        }
    }
}
