import Foundation
import TimelineEngineValueTree

/// Reads JSON text (RFC 8259) into a `Value` tree in which every value keeps its line and
/// column.
///
/// Foundation's `JSONSerialization` and `JSONDecoder` report no positions, so this reader is our
/// own. It is strict: no comments, no trailing commas, no `NaN`, no duplicate keys in one object,
/// no lone surrogates. Nesting is capped (`maximumDepth`) so hostile input cannot exhaust the
/// stack. Integers that fit in [−2^63, 2^64 − 1] become `.integer`; every other number
/// becomes `.real`.
public struct JSONReader: Sendable {
    /// The deepest nesting of arrays and objects accepted. The default, 512, matches the
    /// property-list reader.
    public var maximumDepth: Int

    public init(maximumDepth: Int = 512) {
        self.maximumDepth = maximumDepth
    }

    /// Parses one JSON value that fills the whole text (surrounding whitespace allowed, and a
    /// UTF-8 byte-order mark at the start).
    public func read(_ data: Data) throws(JSONSyntaxError) -> Value {
        let result = data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Result<Value, JSONSyntaxError> in
            parse(raw.bindMemory(to: UInt8.self))
        }
        return try result.get()
    }

    /// Parses JSON from a string, reading its UTF-8 in place.
    public func read(_ text: String) throws(JSONSyntaxError) -> Value {
        var text = text
        return try text.withUTF8(parse).get()
    }

    private func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<Value, JSONSyntaxError> {
        var parser = Parser(bytes: bytes, maximumDepth: maximumDepth)
        return Result { () throws(JSONSyntaxError) -> Value in try parser.parseDocument() }
    }
}

private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var position = 0
    var line = 1
    var lineStart = 0
    // Column cache on the current line, so that long lines stay linear.
    var columnCachePosition = 0
    var columnCacheValue = 1
    var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    mutating func location(at offset: Int) -> SourceLocation {
        if columnCachePosition < lineStart || columnCachePosition > offset {
            columnCachePosition = lineStart
            columnCacheValue = 1
        }
        var index = columnCachePosition
        var column = columnCacheValue
        while index < offset {
            if bytes[index] & 0xC0 != 0x80 { column += 1 }
            index += 1
        }
        columnCachePosition = offset
        columnCacheValue = column
        return SourceLocation(line: line, column: column)
    }

    mutating func fail(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        JSONSyntaxError(message, at: location(at: min(offset ?? position, bytes.count)))
    }

    mutating func parseDocument() throws(JSONSyntaxError) -> Value {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
            position = 3
            lineStart = 3
            columnCachePosition = 3
        } else if bytes.count >= 2, (bytes[0] == 0xFE && bytes[1] == 0xFF) || (bytes[0] == 0xFF && bytes[1] == 0xFE) {
            throw fail("JSON text must be UTF-8; found a UTF-16 byte-order mark")
        }
        skipWhitespace()
        if position == bytes.count { throw fail("empty document: expected a JSON value") }
        let value = try parseValue()
        skipWhitespace()
        if position != bytes.count {
            throw fail("unexpected \(describe(at: position)) after the end of the JSON value")
        }
        return value
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                position += 1
            case UInt8(ascii: "\n"):
                position += 1
                line += 1
                lineStart = position
            case UInt8(ascii: "\r"):
                position += 1
                if position < bytes.count, bytes[position] == UInt8(ascii: "\n") { position += 1 }
                line += 1
                lineStart = position
            default:
                return
            }
        }
    }

    func describe(at offset: Int) -> String {
        guard offset < bytes.count else { return "end of input" }
        let byte = bytes[offset]
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        if byte < 0x80 { return "control character U+\(String(format: "%04X", byte))" }
        // Decode one scalar for the message.
        var end = offset + 1
        while end < bytes.count, end - offset < 4, bytes[end] & 0xC0 == 0x80 { end += 1 }
        if let text = String(validating: UnsafeBufferPointer(rebasing: bytes[offset..<end]), as: UTF8.self) {
            return "'\(text)'"
        }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    mutating func parseValue() throws(JSONSyntaxError) -> Value {
        guard position < bytes.count else { throw fail("unexpected end of input: expected a JSON value") }
        let start = position
        let here = location(at: start)
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject(location: here)
        case UInt8(ascii: "["): return try parseArray(location: here)
        case UInt8(ascii: "\""): return Value(.string(try parseString()), location: here)
        case UInt8(ascii: "t"):
            try expectWord("true")
            return Value(.bool(true), location: here)
        case UInt8(ascii: "f"):
            try expectWord("false")
            return Value(.bool(false), location: here)
        case UInt8(ascii: "n"):
            try expectWord("null")
            return Value(.null, location: here)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber(location: here)
        default:
            throw fail("unexpected \(describe(at: position)): expected a JSON value")
        }
    }

    mutating func expectWord(_ word: StaticString) throws(JSONSyntaxError) {
        let start = position
        let utf8 = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for expected in utf8 {
            guard position < bytes.count, bytes[position] == expected else {
                throw fail("invalid literal: expected '\(word)'", at: start)
            }
            position += 1
        }
        if position < bytes.count, isIdentifierByte(bytes[position]) {
            throw fail("invalid literal: expected '\(word)'", at: start)
        }
    }

    func isIdentifierByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
    }

    mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        if depth > maximumDepth {
            throw fail("nesting too deep: more than \(maximumDepth) levels of arrays and objects")
        }
    }

    mutating func parseObject(location here: SourceLocation) throws(JSONSyntaxError) -> Value {
        try enter()
        position += 1
        var members = Value.Dictionary()
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return Value(.dictionary(members), location: here)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
                if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
                    throw fail("trailing comma before '}'")
                }
                throw fail("expected a string key, found \(describe(at: position))")
            }
            let keyLocation = location(at: position)
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else {
                throw fail("expected ':' after key \(Value.quote(key)), found \(describe(at: position))")
            }
            position += 1
            skipWhitespace()
            let value = try parseValue()
            // One lookup adds the member and finds a key written before.
            if let previous = members.updateValue(Value.Member(keyLocation: keyLocation, value: value), forKey: Value.Key(key)) {
                let firstLine = previous.keyLocation.map { " (first at line \($0.line))" } ?? ""
                throw JSONSyntaxError("duplicate key \(Value.quote(key))\(firstLine)", at: keyLocation)
            }
            skipWhitespace()
            guard position < bytes.count else { throw fail("unexpected end of input: expected ',' or '}' in object") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: "}") {
                position += 1
                depth -= 1
                return Value(.dictionary(members), location: here)
            }
            throw fail("expected ',' or '}' after a member, found \(describe(at: position))")
        }
    }

    mutating func parseArray(location here: SourceLocation) throws(JSONSyntaxError) -> Value {
        try enter()
        position += 1
        var elements: [Value] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return Value(.array(elements), location: here)
        }
        while true {
            skipWhitespace()
            if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
                throw fail("trailing comma before ']'")
            }
            elements.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else { throw fail("unexpected end of input: expected ',' or ']' in array") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: "]") {
                position += 1
                depth -= 1
                return Value(.array(elements), location: here)
            }
            throw fail("expected ',' or ']' after an element, found \(describe(at: position))")
        }
    }

    mutating func parseString() throws(JSONSyntaxError) -> String {
        let open = position
        position += 1
        let start = position
        // Most strings have no escape: their text is read in place, with no buffer.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\""), let text = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self) {
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            position += 1
        }
        var buffer: [UInt8] = []
        var segmentStart = start
        while true {
            guard position < bytes.count else { throw fail("unterminated string", at: open) }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segmentStart..<position]))
                position += 1
                break
            }
            if byte < 0x20 {
                throw fail("unescaped control character U+\(String(format: "%04X", byte)) in string")
            }
            if byte == UInt8(ascii: "\\") {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segmentStart..<position]))
                try parseEscape(into: &buffer)
                segmentStart = position
                continue
            }
            position += 1
        }
        guard let text = String(validating: buffer, as: UTF8.self) else {
            throw fail("string is not valid UTF-8", at: open)
        }
        return text
    }

    mutating func parseEscape(into buffer: inout [UInt8]) throws(JSONSyntaxError) {
        let escapeStart = position
        do {
            try JSONEscape.decode(bytes, at: &position) { buffer.append($0) }
        } catch {
            throw fail(error.message, at: error == .unterminated ? nil : escapeStart)
        }
    }

    mutating func parseNumber(location here: SourceLocation) throws(JSONSyntaxError) -> Value {
        let start = position
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        func isDigit(_ offset: Int) -> Bool {
            offset < bytes.count && bytes[offset] >= UInt8(ascii: "0") && bytes[offset] <= UInt8(ascii: "9")
        }
        guard isDigit(position) else { throw fail("invalid number: expected a digit after '-'", at: start) }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if isDigit(position) { throw fail("invalid number: leading zeros are not allowed", at: start) }
        } else {
            while isDigit(position) { position += 1 }
        }
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard isDigit(position) else { throw fail("invalid number: expected a digit after '.'", at: start) }
            while isDigit(position) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard isDigit(position) else { throw fail("invalid number: expected a digit in the exponent", at: start) }
            while isDigit(position) { position += 1 }
        }
        if position < bytes.count, isIdentifierByte(bytes[position]) || bytes[position] == UInt8(ascii: ".") {
            throw fail("invalid number: unexpected \(describe(at: position))", at: start)
        }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<position])
        if isInteger, case .integer(let integer) = IntegerValue.parse(text) {
            return Value(.integer(integer), location: here)
        }
        let string = String(decoding: text, as: UTF8.self)
        guard let double = Double(string), double.isFinite else {
            throw fail("number \(string) is out of range", at: start)
        }
        if DecimalText.underflows(text, value: double) {
            throw fail("number \(string) is too small to represent; it would read as 0", at: start)
        }
        return Value(.real(double), location: here)
    }
}
