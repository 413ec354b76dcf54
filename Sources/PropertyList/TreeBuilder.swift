import CLibXML2
import Foundation
import ValueTree

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

    private enum Frame {
        case plist(location: SourceLocation, root: Value?)
        case dict(location: SourceLocation, members: Value.Dictionary, pendingKey: PendingKey?)
        case array(location: SourceLocation, elements: [Value])
        /// A key or scalar element collecting its text.
        case text(tag: Tag, location: SourceLocation)
    }

    var context: xmlParserCtxtPtr?
    private(set) var error: PropertyListError?
    private(set) var root: Value?
    private var stack: [Frame] = []
    private var text: [UInt8] = []
    private var containerDepth = 0
    private let maximumDepth: Int

    init(maximumDepth: Int) {
        self.maximumDepth = maximumDepth
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
        error = PropertyListError(message, at: location ?? SourceLocation(line: max(1, currentLine)))
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
        guard let frame = stack.last else { return nil }
        switch frame {
        case .plist(let location, _): return "<plist> opened at line \(location.line)"
        case .dict(let location, _, _): return "<dict> opened at line \(location.line)"
        case .array(let location, _): return "<array> opened at line \(location.line)"
        case .text(let tag, let location): return "<\(tag.name)> opened at line \(location.line)"
        }
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
        switch stack.last {
        case nil:
            if root != nil {
                fail("more than one root element", at: location)
                return
            }
            if tag == .key {
                fail("<key> is only allowed directly inside <dict>", at: location)
                return
            }
        case .plist(_, let existing):
            if existing != nil {
                fail("more than one root object in <plist>: found <\(tag.name)> after the first value", at: location)
                return
            }
            if tag == .key {
                fail("<key> is only allowed directly inside <dict>", at: location)
                return
            }
        case .dict(_, _, let pendingKey):
            if let pendingKey, tag == .key {
                fail("key \(Value.quote(pendingKey.key)) has no value (another <key> follows at line \(location.line))", at: pendingKey.location)
                return
            }
            if pendingKey == nil, tag != .key {
                fail("expected <key> inside <dict>, found <\(tag.name)>", at: location)
                return
            }
        case .array:
            if tag == .key {
                fail("<key> is not allowed inside <array>", at: location)
                return
            }
        case .text(let parent, _):
            fail("<\(parent.name)> cannot contain an element (found <\(tag.name)>)", at: location)
            return
        }
        if tag == .plist, !stack.isEmpty {
            fail("<plist> can only be the document's root element", at: location)
            return
        }
        switch tag {
        case .plist:
            stack.append(.plist(location: location, root: nil))
        case .dict, .array:
            containerDepth += 1
            if containerDepth > maximumDepth {
                fail("nesting too deep: more than \(maximumDepth) nested dictionaries and arrays", at: location)
                return
            }
            stack.append(tag == .dict ? .dict(location: location, members: [:], pendingKey: nil) : .array(location: location, elements: []))
        default:
            text.removeAll(keepingCapacity: true)
            stack.append(.text(tag: tag, location: location))
        }
    }

    func characters(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard error == nil else { return }
        if case .text? = stack.last {
            text.append(contentsOf: bytes)
            return
        }
        for byte in bytes where !(byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D) {
            let where_: String
            switch stack.last {
            case .dict: where_ = "<dict>"
            case .array: where_ = "<array>"
            case .plist: where_ = "<plist>"
            default: where_ = "the document"
            }
            let snippet = String(decoding: bytes.prefix(40), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            fail("unexpected text \(Value.quote(snippet)) inside \(where_)")
            return
        }
    }

    func endElement(_ name: UnsafePointer<xmlChar>) {
        guard error == nil, let frame = stack.popLast() else { return }
        switch frame {
        case .plist(let location, let value):
            guard let value else {
                fail("empty <plist>: it must hold exactly one value", at: location)
                return
            }
            attach(value)
        case .dict(let location, let members, let pendingKey):
            containerDepth -= 1
            if let pendingKey {
                fail("key \(Value.quote(pendingKey.key)) has no value", at: pendingKey.location)
                return
            }
            attach(Value(.dictionary(members), location: location))
        case .array(let location, let elements):
            containerDepth -= 1
            attach(Value(.array(elements), location: location))
        case .text(let tag, let location):
            if tag == .key {
                let key = String(decoding: text, as: UTF8.self)
                guard case .dict(let dictLocation, let members, _) = stack.popLast() else { return }
                stack.append(.dict(location: dictLocation, members: members, pendingKey: PendingKey(key: key, location: location)))
                return
            }
            if let value = scalar(tag, at: location) {
                attach(value)
            }
        }
    }

    private func attach(_ value: Value) {
        guard let parent = stack.popLast() else {
            root = value
            return
        }
        switch parent {
        case .plist(let location, _):
            stack.append(.plist(location: location, root: value))
        case .array(let location, var elements):
            elements.append(value)
            stack.append(.array(location: location, elements: elements))
        case .dict(let location, var members, let pendingKey):
            guard let pendingKey else { return }
            let member = Value.Member(keyLocation: pendingKey.location, value: value)
            if let previous = members.updateValue(member, forKey: pendingKey.key) {
                let first = previous.keyLocation.map { " (first at line \($0.line))" } ?? ""
                fail("duplicate key \(Value.quote(pendingKey.key))\(first)", at: pendingKey.location)
                return
            }
            stack.append(.dict(location: location, members: members, pendingKey: nil))
        case .text:
            break
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
                fail(text.isEmpty ? "empty <integer>" : "invalid integer \(Value.quote(textSnippet)): expected decimal digits or 0x followed by hex digits", at: location)
            }
            return nil
        case .real:
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
        while digit(index) { index += 1; digits += 1 }
        if index < count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while digit(index) { index += 1; digits += 1 }
        }
        guard digits > 0 else { return nil }
        if index < count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
            guard digit(index) else { return nil }
            while digit(index) { index += 1 }
        }
        guard index == count, let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }
}
