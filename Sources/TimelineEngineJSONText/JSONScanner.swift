import TimelineEngineValueTree

/// A pull parser over one JSON text in memory, for decoding straight into typed values without
/// building a `Value` tree.
///
/// The caller walks the document: `beginObject()` then `nextKey()` until it returns nil,
/// reading or skipping each member's value; `beginArray()` then `nextElement()` likewise. It is
/// as strict as `JSONReader` (no comments, trailing commas, leading zeros, lone surrogates or
/// invalid UTF-8), and errors carry the line and column. Keys come back as raw bytes, so
/// matching a known key allocates nothing. Duplicate keys are the caller's to detect.
///
/// Used where throughput matters: recorded sessions are read line by line with it.
public struct JSONScanner {
    /// The kinds of JSON value.
    public enum Kind: Sendable, Equatable {
        case object, array, string, number, bool, null
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    /// The byte offset of the next unread byte.
    public private(set) var offset = 0
    /// The line the text starts on, for error locations.
    public var firstLine: Int
    private var depth = 0
    /// The deepest nesting `skipValue()` accepts.
    public var maximumDepth = 512
    /// Whether a container was just opened, so that the first member or element has no comma.
    private var expectingFirst = false
    private let scratch = ScratchBuffer()

    /// Scans `bytes`, which must outlive the scanner. `firstLine` numbers the text's first line.
    public init(_ bytes: UnsafeBufferPointer<UInt8>, firstLine: Int = 1) {
        self.bytes = bytes
        self.firstLine = firstLine
    }

    // MARK: Errors

    /// The line and column of byte `offset` (columns count characters, from 1).
    public func location(at offset: Int) -> SourceLocation {
        var line = firstLine
        var column = 1
        var index = 0
        let end = min(offset, bytes.count)
        while index < end {
            let byte = bytes[index]
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            index += 1
        }
        return SourceLocation(line: line, column: column)
    }

    /// An error at `offset` (the current position by default).
    public func error(_ message: String, at offset: Int? = nil) -> JSONSyntaxError {
        JSONSyntaxError(message, at: location(at: offset ?? self.offset))
    }

    private func describe(at offset: Int) -> String {
        guard offset < bytes.count else { return "end of line" }
        let byte = bytes[offset]
        if byte >= 0x20, byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    // MARK: Structure

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    /// The kind of the next value, without consuming it.
    public mutating func peek() throws(JSONSyntaxError) -> Kind {
        skipWhitespace()
        guard offset < bytes.count else { throw error("expected a value, found end of line") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw error("expected a value, found \(describe(at: offset))")
        }
    }

    /// The JSON type name of the next value, for messages: `object`, `array`, `string`, …
    public mutating func peekTypeName() -> String {
        switch try? peek() {
        case .object: return "object"
        case .array: return "array"
        case .string: return "string"
        case .number: return "number"
        case .bool: return "boolean"
        case .null: return "null"
        case nil: return "nothing"
        }
    }

    /// Consumes `{`.
    public mutating func beginObject() throws(JSONSyntaxError) {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "{") else {
            throw error("expected an object, found \(describe(at: offset))")
        }
        offset += 1
        depth += 1
        expectingFirst = true
    }

    /// The next member's key, with the scanner positioned at its value; nil after the closing `}`.
    /// The bytes are valid until the next call.
    public mutating func nextKey() throws(JSONSyntaxError) -> UnsafeBufferPointer<UInt8>? {
        skipWhitespace()
        guard offset < bytes.count else { throw error("unterminated object: expected '}'") }
        if bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            depth -= 1
            expectingFirst = false
            return nil
        }
        if !expectingFirst {
            guard bytes[offset] == UInt8(ascii: ",") else {
                throw error("expected ',' or '}' after a member, found \(describe(at: offset))")
            }
            offset += 1
            skipWhitespace()
        }
        expectingFirst = false
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
            throw error("expected a string key, found \(describe(at: offset))")
        }
        let key = try rawString()
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else {
            throw error("expected ':' after a key, found \(describe(at: offset))")
        }
        offset += 1
        return key
    }

    /// Consumes `[`.
    public mutating func beginArray() throws(JSONSyntaxError) {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "[") else {
            throw error("expected an array, found \(describe(at: offset))")
        }
        offset += 1
        depth += 1
        expectingFirst = true
    }

    /// True with the scanner positioned at the next element; false after the closing `]`.
    public mutating func nextElement() throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        guard offset < bytes.count else { throw error("unterminated array: expected ']'") }
        if bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            depth -= 1
            expectingFirst = false
            return false
        }
        if !expectingFirst {
            guard bytes[offset] == UInt8(ascii: ",") else {
                throw error("expected ',' or ']' after an element, found \(describe(at: offset))")
            }
            offset += 1
        }
        expectingFirst = false
        return true
    }

    /// Checks that nothing but whitespace is left.
    public mutating func end() throws(JSONSyntaxError) {
        skipWhitespace()
        guard offset >= bytes.count else { throw error("unexpected \(describe(at: offset)) after the value") }
    }

    // MARK: Values

    /// Consumes a string and returns it.
    public mutating func string() throws(JSONSyntaxError) -> String {
        let start = offset
        let raw = try rawString()
        // ASCII is valid UTF-8 by definition and takes the fast, non-generic initializer.
        if JSONScanner.isASCII(raw) { return String(decoding: raw, as: UTF8.self) }
        guard let text = String(validating: raw, as: UTF8.self) else { throw error("string is not valid UTF-8", at: start) }
        return text
    }

    /// Consumes a string and returns its decoded UTF-8 bytes, valid until the next call.
    public mutating func stringBytes() throws(JSONSyntaxError) -> UnsafeBufferPointer<UInt8> {
        try rawString()
    }

    /// Consumes a number.
    public mutating func number() throws(JSONSyntaxError) -> Double {
        skipWhitespace()
        let start = offset
        guard offset < bytes.count else { throw error("expected a number, found end of line") }
        var negative = false
        if bytes[offset] == UInt8(ascii: "-") {
            negative = true
            offset += 1
        }
        guard isDigit(offset) else {
            throw error(negative ? "invalid number: expected a digit after '-'" : "expected a number, found \(describe(at: start))", at: start)
        }
        var mantissa: UInt64 = 0
        var digits = 0
        if bytes[offset] == UInt8(ascii: "0") {
            offset += 1
            if isDigit(offset) { throw error("invalid number: leading zeros are not allowed", at: start) }
        } else {
            while isDigit(offset) {
                if digits < 18 { mantissa = mantissa * 10 + UInt64(bytes[offset] - UInt8(ascii: "0")) }
                digits += 1
                offset += 1
            }
        }
        var simple = digits <= 15
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            simple = false
            offset += 1
            guard isDigit(offset) else { throw error("invalid number: expected a digit after '.'", at: start) }
            while isDigit(offset) { offset += 1 }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            simple = false
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard isDigit(offset) else { throw error("invalid number: expected a digit in the exponent", at: start) }
            while isDigit(offset) { offset += 1 }
        }
        if simple { return negative ? -Double(mantissa) : Double(mantissa) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw error("number \(text) is out of range", at: start) }
        if DecimalText.underflows(text.utf8, value: value) { throw error("number \(text) is too small to represent; it would read as 0", at: start) }
        return value
    }

    /// Consumes a number and returns its text with its value, for callers that tell an integer
    /// (digits alone, as `JSONReader` reads one) from a real.
    public mutating func numberToken() throws(JSONSyntaxError) -> (text: UnsafeBufferPointer<UInt8>, value: Double) {
        skipWhitespace()
        let start = offset
        let value = try number()
        return (UnsafeBufferPointer(rebasing: bytes[start..<offset]), value)
    }

    /// Consumes `true` or `false`.
    public mutating func bool() throws(JSONSyntaxError) -> Bool {
        skipWhitespace()
        if matchWord("true") { return true }
        if matchWord("false") { return false }
        throw error("expected true or false, found \(describe(at: offset))")
    }

    /// Consumes `null` if it comes next.
    public mutating func null() -> Bool {
        skipWhitespace()
        return matchWord("null")
    }

    /// Consumes the next value, whatever it is, checking its syntax.
    public mutating func skipValue() throws(JSONSyntaxError) {
        switch try peek() {
        case .object:
            guard depth < maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
            try beginObject()
            while try nextKey() != nil { try skipValue() }
        case .array:
            guard depth < maximumDepth else { throw error("nesting deeper than \(maximumDepth) levels") }
            try beginArray()
            while try nextElement() { try skipValue() }
        case .string: _ = try string()
        case .number: _ = try number()
        case .bool: _ = try bool()
        case .null:
            guard null() else { throw error("expected a value, found \(describe(at: offset))") }
        }
    }

    // MARK: Helpers

    /// Whether every byte is below 0x80, eight at a time.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var index = 0
        while index + 8 <= bytes.count {
            if UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            index += 8
        }
        while index < bytes.count {
            if base[index] >= 0x80 { return false }
            index += 1
        }
        return true
    }

    private func isDigit(_ index: Int) -> Bool {
        index < bytes.count && bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")
    }

    private mutating func matchWord(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard offset + count <= bytes.count else { return false }
        let pointer = word.utf8Start
        for index in 0..<count where bytes[offset + index] != pointer[index] { return false }
        let next = offset + count
        if next < bytes.count, (bytes[next] >= UInt8(ascii: "a") && bytes[next] <= UInt8(ascii: "z")) || isDigit(next) {
            return false
        }
        offset = next
        return true
    }

    /// Consumes a string. Without escapes the result points into the text; with escapes, into a
    /// scratch buffer that the next call reuses.
    private mutating func rawString() throws(JSONSyntaxError) -> UnsafeBufferPointer<UInt8> {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else {
            throw error("expected a string, found \(describe(at: offset))")
        }
        let open = offset
        offset += 1
        let start = offset
        skipPlainStringBytes()
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                offset += 1
                return UnsafeBufferPointer(rebasing: bytes[start..<offset - 1])
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("unescaped control character U+\(String(format: "%04X", byte)) in string") }
            offset += 1
        }
        guard offset < bytes.count else { throw error("unterminated string", at: open) }
        scratch.count = 0
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<offset]))
        while true {
            guard offset < bytes.count else { throw error("unterminated string", at: open) }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                offset += 1
                break
            }
            if byte < 0x20 { throw error("unescaped control character U+\(String(format: "%04X", byte)) in string") }
            if byte == UInt8(ascii: "\\") {
                try escape()
            } else {
                scratch.append(byte)
                offset += 1
            }
        }
        return scratch.contents
    }

    /// Skips eight bytes at a time while none is a quote, a backslash or a control character
    /// (bit tricks on a 64-bit word; the byte loop after it finds the exact stop).
    private mutating func skipPlainStringBytes() {
        guard let base = bytes.baseAddress else { return }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while offset + 8 <= bytes.count {
            let word = UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
            if special & highs != 0 { return }
            offset += 8
        }
    }

    private mutating func escape() throws(JSONSyntaxError) {
        let escapeStart = offset
        let scratch = self.scratch
        do {
            try JSONEscape.decode(bytes, at: &offset) { scratch.append($0) }
        } catch {
            throw self.error(error.message, at: error == .unterminated ? nil : escapeStart)
        }
    }
}

/// Growable bytes that decoded strings are written to; its contents stay put until the next
/// write, so a scanner can hand out a pointer to them.
private final class ScratchBuffer {
    private var storage = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    private var capacity = 256
    var count = 0

    deinit { storage.deallocate() }

    var contents: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage, count: count) }

    private func reserve(_ needed: Int) {
        guard needed > capacity else { return }
        var newCapacity = capacity
        while newCapacity < needed { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: storage, count: count)
        storage.deallocate()
        storage = grown
        capacity = newCapacity
    }

    func append(_ byte: UInt8) {
        reserve(count + 1)
        storage[count] = byte
        count += 1
    }

    func append(contentsOf bytes: some Collection<UInt8>) {
        reserve(count + bytes.count)
        for byte in bytes {
            storage[count] = byte
            count += 1
        }
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// Whether these bytes spell `text` (ASCII).
    public func spells(_ text: StaticString) -> Bool {
        guard count == text.utf8CodeUnitCount else { return false }
        let pointer = text.utf8Start
        for index in 0..<count where self[index] != pointer[index] { return false }
        return true
    }
}
