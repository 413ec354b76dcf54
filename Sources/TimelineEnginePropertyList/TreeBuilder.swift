import Foundation
import TimelineEngineCLibXML2
import TimelineEngineValueTree

/// The SAX2 event consumer behind `PropertyListReader`: enforces the plist 1.0 structure and
/// turns elements into values as they close.
final class TreeBuilder {
    private enum Tag: Equatable {
        case plist, dict, array, key, string, integer, real, `true`, `false`, date, data

        var name: String {
            switch self {
            case .plist: "plist"
            case .dict: "dict"
            case .array: "array"
            case .key: "key"
            case .string: "string"
            case .integer: "integer"
            case .real: "real"
            case .true: "true"
            case .false: "false"
            case .date: "date"
            case .data: "data"
            }
        }
    }

    private struct PendingKey {
        let key: String
        let location: SourceLocation
    }

    /// An open `<plist>`, `<dict>` or `<array>`. A class, so that adding to it mutates in place
    /// instead of copying the collection.
    private final class Frame {
        let tag: Tag
        let location: SourceLocation
        var members = Value.Dictionary()
        var elements: [Value] = []
        var pendingKey: PendingKey?
        var root: Value?
        /// In checking mode, the keys seen so far (for duplicate detection).
        var keys: Set<Value.Key> = []

        init(tag: Tag, location: SourceLocation) {
            self.tag = tag
            self.location = location
        }
    }

    var context: xmlParserCtxtPtr?
    private(set) var error: PropertyListError?
    /// Set when checking mode stopped at a duplicate key.
    private(set) var foundDuplicateWhileChecking = false
    private(set) var root: Value?
    private var stack: [Frame] = []
    /// The key or scalar element being read, if any (they cannot nest).
    private var textElement: (tag: Tag, location: SourceLocation)?
    private var text: [UInt8] = []
    private let maximumDepth: Int
    /// False when only checking: values are parsed and validated, then dropped, so memory
    /// stays flat however large the document.
    private let retainsValues: Bool

    init(maximumDepth: Int, retainsValues: Bool = true) {
        self.maximumDepth = maximumDepth
        self.retainsValues = retainsValues
        text.reserveCapacity(256)
    }

    // MARK: - Positions

    private var currentLine: Int { Int(timeline_xml_line(context)) }

    /// The location of an element whose start tag just ended. libxml2 reports the position of the
    /// tag's closing `>`; for a tag without attributes the `<` is `name.count + 1` columns before.
    private func startLocation(nameLength: Int, hasAttributes: Bool) -> SourceLocation {
        let column = Int(timeline_xml_column(context))
        if !hasAttributes, column > nameLength + 1 {
            return SourceLocation(line: currentLine, column: column - nameLength - 1)
        }
        return SourceLocation(line: currentLine, column: column > 0 ? column : nil)
    }

    // MARK: - Errors

    func fail(_ message: String, at location: SourceLocation? = nil) {
        guard error == nil else { return }
        error = PropertyListError(
            message, at: location ?? SourceLocation(line: max(1, currentLine)),
            duplicateFoundWhileChecking: foundDuplicateWhileChecking)
        if let context { xmlStopParser(context) }
    }

    func libxmlError(_ raw: xmlError) {
        guard raw.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        var message = raw.message.map { String(cString: $0) } ?? "malformed XML"
        while message.last?.isWhitespace == true { message.removeLast() }
        let line = raw.line > 0 ? Int(raw.line) : max(1, currentLine)
        if raw.code == Int32(XML_ERR_DOCUMENT_END.rawValue) || raw.code == Int32(XML_ERR_DOCUMENT_EMPTY.rawValue) {
            // libxml2's push parser calls a truncated document "extra content at the end".
            if let open = openElementDescription {
                message = "unexpected end of the document: \(open) is not closed"
            } else if root == nil, raw.code == Int32(XML_ERR_DOCUMENT_EMPTY.rawValue) || stack.isEmpty {
                message = "no root element: the document is empty or not XML"
            }
        }
        fail(message, at: SourceLocation(line: line, column: raw.int2 > 0 ? Int(raw.int2) : nil))
    }

    /// `<dict> (line 3)`: the innermost element still open, if any.
    private var openElementDescription: String? {
        if let textElement { return "<\(textElement.tag.name)> opened at line \(textElement.location.line)" }
        guard let frame = stack.last else { return nil }
        return "<\(frame.tag.name)> opened at line \(frame.location.line)"
    }

    func doctype() {
        // Called when `<!DOCTYPE name …` has been read; an internal subset follows when the next
        // byte is `[`. Plists never need one, and it is where entity tricks live.
        if timeline_xml_current_byte(context) == Int32(UInt8(ascii: "[")) {
            fail("a DOCTYPE with an internal subset ([…]) is not allowed in property lists")
        }
    }

    // MARK: - Elements

    private static func tag(_ name: UnsafePointer<xmlChar>) -> Tag? {
        let length = strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self))
        func matches(_ literal: StaticString) -> Bool {
            literal.utf8CodeUnitCount == length && memcmp(literal.utf8Start, name, length) == 0
        }
        switch name[0] {
        case UInt8(ascii: "k"): return matches("key") ? .key : nil
        case UInt8(ascii: "s"): return matches("string") ? .string : nil
        case UInt8(ascii: "i"): return matches("integer") ? .integer : nil
        case UInt8(ascii: "r"): return matches("real") ? .real : nil
        case UInt8(ascii: "d"): return matches("dict") ? .dict : matches("date") ? .date : matches("data") ? .data : nil
        case UInt8(ascii: "a"): return matches("array") ? .array : nil
        case UInt8(ascii: "t"): return matches("true") ? .true : nil
        case UInt8(ascii: "f"): return matches("false") ? .false : nil
        case UInt8(ascii: "p"): return matches("plist") ? .plist : nil
        default: return nil
        }
    }

    func startElement(_ name: UnsafePointer<xmlChar>, hasAttributes: Bool) {
        guard error == nil else { return }
        let nameLength = strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self))
        let location = startLocation(nameLength: nameLength, hasAttributes: hasAttributes)
        guard let tag = TreeBuilder.tag(name) else {
            fail("unknown tag <\(String(cString: name))>", at: location)
            return
        }
        if let textElement {
            fail("<\(textElement.tag.name)> cannot contain an element (found <\(tag.name)>)", at: location)
            return
        }
        if let parent = stack.last {
            switch parent.tag {
            case .plist:
                if parent.root != nil {
                    fail("more than one root object in <plist>: found <\(tag.name)> after the first value", at: location)
                    return
                }
                if tag == .key {
                    fail("<key> is only allowed directly inside <dict>", at: location)
                    return
                }
            case .dict:
                if let pendingKey = parent.pendingKey, tag == .key {
                    fail("key \(Value.quote(pendingKey.key)) has no value (another <key> follows at line \(location.line))", at: pendingKey.location)
                    return
                }
                if parent.pendingKey == nil, tag != .key {
                    fail("expected <key> inside <dict>, found <\(tag.name)>", at: location)
                    return
                }
            default:
                if tag == .key {
                    fail("<key> is not allowed inside <array>", at: location)
                    return
                }
            }
        } else {
            if root != nil {
                fail("more than one root element", at: location)
                return
            }
            if tag == .key {
                fail("<key> is only allowed directly inside <dict>", at: location)
                return
            }
        }
        if tag == .plist, !stack.isEmpty {
            fail("<plist> can only be the document's root element", at: location)
            return
        }
        switch tag {
        case .plist:
            stack.append(Frame(tag: .plist, location: location))
        case .dict, .array:
            if stack.count - (stack.first?.tag == .plist ? 1 : 0) >= maximumDepth {
                fail("nesting too deep: more than \(maximumDepth) nested dictionaries and arrays", at: location)
                return
            }
            stack.append(Frame(tag: tag, location: location))
        default:
            text.removeAll(keepingCapacity: true)
            textElement = (tag, location)
        }
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard error == nil else { return }
        if textElement != nil {
            text.append(contentsOf: bytes)
            return
        }
        for byte in bytes where !(byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D) {
            let enclosing = stack.last.map { "<\($0.tag.name)>" } ?? "the document"
            let snippet = String(decoding: bytes.prefix(40), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            fail("unexpected text \(Value.quote(snippet)) inside \(enclosing)")
            return
        }
    }

    func endElement(_ name: UnsafePointer<xmlChar>) {
        guard error == nil else { return }
        if let (tag, location) = textElement {
            textElement = nil
            if tag == .key {
                stack.last?.pendingKey = PendingKey(key: String(decoding: text, as: UTF8.self), location: location)
            } else if let value = scalar(tag, at: location) {
                attach(value)
            }
            return
        }
        guard let frame = stack.popLast() else { return }
        switch frame.tag {
        case .plist:
            guard let value = frame.root else {
                fail("empty <plist>: it must hold exactly one value", at: frame.location)
                return
            }
            attach(value)
        case .dict:
            if let pendingKey = frame.pendingKey {
                fail("key \(Value.quote(pendingKey.key)) has no value", at: pendingKey.location)
                return
            }
            attach(Value(.dictionary(frame.members), location: frame.location))
        default:
            attach(Value(.array(frame.elements), location: frame.location))
        }
    }

    private func attach(_ value: Value) {
        guard let parent = stack.last else {
            root = value
            return
        }
        switch parent.tag {
        case .plist:
            parent.root = value
        case .dict:
            guard let pendingKey = parent.pendingKey else { return }
            parent.pendingKey = nil
            if !retainsValues {
                if !parent.keys.insert(Value.Key(pendingKey.key)).inserted {
                    // The first occurrence's line is not kept in checking mode; the reader
                    // reads the document again to report it.
                    foundDuplicateWhileChecking = true
                    fail("duplicate key \(Value.quote(pendingKey.key))", at: pendingKey.location)
                }
                return
            }
            let member = Value.Member(keyLocation: pendingKey.location, value: value)
            if let previous = parent.members.updateValue(member, forKey: Value.Key(pendingKey.key)) {
                let first = previous.keyLocation.map { " (first at line \($0.line))" } ?? ""
                fail("duplicate key \(Value.quote(pendingKey.key))\(first)", at: pendingKey.location)
            }
        default:
            if retainsValues { parent.elements.append(value) }
        }
    }

    // MARK: - Scalars

    private func scalar(_ tag: Tag, at location: SourceLocation) -> Value? {
        switch tag {
        case .string:
            return Value(.string(String(decoding: text, as: UTF8.self)), location: location)
        case .true, .false:
            if !text.isEmpty {
                fail("<\(tag.name)/> must be empty, found \(Value.quote(String(decoding: text.prefix(40), as: UTF8.self)))", at: location)
                return nil
            }
            return Value(.bool(tag == .true), location: location)
        case .integer:
            switch IntegerValue.parse(text) {
            case .integer(let integer):
                return Value(.integer(integer), location: location)
            case .outOfRange:
                fail("integer \(textSnippet) is out of range [-9223372036854775808, 18446744073709551615]", at: location)
            case .notAnInteger:
                fail(
                    text.isEmpty
                        ? "empty <integer>" : "invalid integer \(Value.quote(textSnippet)): expected decimal digits or 0x followed by hex digits",
                    at: location)
            }
            return nil
        case .real:
            if let real = TreeBuilder.parseReal(text), DecimalText.underflows(text, value: real) {
                fail("invalid real \(Value.quote(textSnippet)): too small to represent; it would read as 0", at: location)
                return nil
            }
            guard let real = TreeBuilder.parseReal(text) else {
                fail(text.isEmpty ? "empty <real>" : "invalid real \(Value.quote(textSnippet)): expected a finite decimal number", at: location)
                return nil
            }
            return Value(.real(real), location: location)
        case .date:
            guard let date = DateValue.parse(text) else {
                fail("invalid date \(Value.quote(textSnippet)): expected a real UTC date and time as YYYY-MM-DDTHH:MM:SSZ", at: location)
                return nil
            }
            return Value(.date(date), location: location)
        case .data:
            let result = text.withUnsafeBufferPointer { Base64.decode($0) }
            switch result {
            case .success(let data):
                return Value(.data(data), location: location)
            case .failure(.invalidCharacter(let byte)):
                let shown = byte >= 0x21 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: "byte 0x%02X", byte)
                fail("invalid base64 in <data>: unexpected character \(shown)", at: location)
            case .failure(.badLength):
                fail("invalid base64 in <data>: the text does not end on a complete group of four characters", at: location)
            case .failure(.dataAfterPadding):
                fail("invalid base64 in <data>: characters after '=' padding", at: location)
            }
            return nil
        case .plist, .dict, .array, .key:
            return nil
        }
    }

    private var textSnippet: String {
        let snippet = String(decoding: text.prefix(64), as: UTF8.self)
        return text.count > 64 ? snippet + "…" : snippet
    }

    /// A finite decimal number: optional sign, digits with an optional fraction, optional
    /// exponent. No whitespace, no `inf`/`nan`, no hexadecimal floats.
    static func parseReal(_ bytes: [UInt8]) -> Double? {
        var index = 0
        let count = bytes.count
        func digit(_ i: Int) -> Bool { i < count && bytes[i] >= UInt8(ascii: "0") && bytes[i] <= UInt8(ascii: "9") }
        if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
        var digits = 0
        while digit(index) {
            index += 1
            digits += 1
        }
        if index < count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while digit(index) {
                index += 1
                digits += 1
            }
        }
        guard digits > 0 else { return nil }
        if index < count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
            guard digit(index) else { return nil }
            while digit(index) { index += 1 }
        }
        // The grammar is checked above; Swift's conversion is correctly rounded and, unlike
        // strtod, independent of the process's locale.
        guard index == count, let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }
}
