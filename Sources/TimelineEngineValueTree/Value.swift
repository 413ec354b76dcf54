import Foundation
@_exported import OrderedCollections

/// A node of the value tree that property lists and JSON are both read into, and that the schema
/// validator and the configuration work on. Every node remembers where it came from.
public struct Value: Sendable, Equatable, CustomStringConvertible {
    /// The dictionary representation: members in document order, looked up by key. Keys
    /// compare by Unicode scalars (`Key`), as JSON Schema and property lists do.
    public typealias Dictionary = OrderedDictionary<Key, Member>

    /// A dictionary key. Two keys are the same only when their Unicode scalars are: "é"
    /// (U+00E9) and "e" + U+0301 are two keys, as JSON (RFC 8259), JSON Schema and Apple's
    /// property lists have it, where Swift's `String ==` would take them for one.
    public struct Key: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
        public let string: String

        public init(_ string: String) {
            self.string = string
        }

        public init(stringLiteral value: String) {
            self.string = value
        }

        public static func == (lhs: Key, rhs: Key) -> Bool {
            Value.sameScalars(lhs.string, rhs.string)
        }

        public func hash(into hasher: inout Hasher) {
            var utf8 = string
            utf8.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        }

        /// Order by Unicode scalars (code points), as JSON Schema and sorted plists do.
        public static func < (lhs: Key, rhs: Key) -> Bool {
            lhs.string.unicodeScalars.lexicographicallyPrecedes(rhs.string.unicodeScalars)
        }

        public var description: String { string }
    }

    /// What a node holds. `date` and `data` come only from property lists, `null` only from JSON.
    public enum Content: Sendable {
        case null
        case bool(Bool)
        case integer(IntegerValue)
        case real(Double)
        case string(String)
        case date(DateValue)
        case data(Data)
        case array([Value])
        case dictionary(Dictionary)
    }

    /// One member of a dictionary: the value and where its key was written.
    public struct Member: Sendable, Equatable {
        private var storedKeyLocation: SourceLocation
        public var value: Value

        /// Where the key was written, when the document came from a file.
        public var keyLocation: SourceLocation? {
            get { storedKeyLocation.line == 0 ? nil : storedKeyLocation }
            set { storedKeyLocation = newValue ?? SourceLocation(line: 0) }
        }

        public init(keyLocation: SourceLocation? = nil, value: Value) {
            self.storedKeyLocation = keyLocation ?? SourceLocation(line: 0)
            self.value = value
        }

        /// Members are equal when their values are; locations do not count.
        public static func == (lhs: Member, rhs: Member) -> Bool { lhs.value == rhs.value }
    }

    public var content: Content
    // Line 0 stands for "no location", which keeps a value at 40 bytes.
    private var storedLocation: SourceLocation

    /// Where the value starts in its source document, when it was read from one.
    public var location: SourceLocation? {
        get { storedLocation.line == 0 ? nil : storedLocation }
        set { storedLocation = newValue ?? SourceLocation(line: 0) }
    }

    public init(_ content: Content, location: SourceLocation? = nil) {
        self.content = content
        self.storedLocation = location ?? SourceLocation(line: 0)
    }

    public static let null = Value(.null)
    public static func bool(_ value: Bool) -> Value { Value(.bool(value)) }
    public static func integer(_ value: Int) -> Value { Value(.integer(IntegerValue(value))) }
    public static func real(_ value: Double) -> Value { Value(.real(value)) }
    public static func string(_ value: String) -> Value { Value(.string(value)) }
    public static func array(_ values: [Value]) -> Value { Value(.array(values)) }

    /// A dictionary from key–value pairs in order; a repeated key keeps its last value.
    public static func dictionary(_ pairs: KeyValuePairs<String, Value>) -> Value {
        dictionary(pairs.map { ($0.key, $0.value) })
    }

    /// A dictionary from key–value pairs in order; a repeated key keeps its last value.
    public static func dictionary(_ pairs: [(String, Value)]) -> Value {
        var members = Dictionary()
        for (key, value) in pairs { members[Key(key)] = Member(value: value) }
        return Value(.dictionary(members))
    }

    /// The name of the value's type as a person reads it: `dictionary`, `array`, `string`,
    /// `integer`, `real`, `boolean`, `date`, `data` or `null`.
    public var typeName: String {
        switch content {
        case .null: return "null"
        case .bool: return "boolean"
        case .integer: return "integer"
        case .real: return "real"
        case .string: return "string"
        case .date: return "date"
        case .data: return "data"
        case .array: return "array"
        case .dictionary: return "dictionary"
        }
    }

    public var stringValue: String? {
        if case .string(let value) = content { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = content { return value }
        return nil
    }

    public var integerValue: IntegerValue? {
        if case .integer(let value) = content { return value }
        return nil
    }

    /// The value of an integer or a real as a `Double`.
    public var numberValue: Double? {
        switch content {
        case .integer(let value): return value.doubleValue
        case .real(let value): return value
        default: return nil
        }
    }

    public var arrayValue: [Value]? {
        if case .array(let value) = content { return value }
        return nil
    }

    public var dictionaryValue: Dictionary? {
        if case .dictionary(let value) = content { return value }
        return nil
    }

    /// The member value under `key`, when this is a dictionary that has it.
    public subscript(key: String) -> Value? {
        dictionaryValue?[key]?.value
    }

    /// The value at `path`, when every step exists.
    public subscript(path: ValuePath) -> Value? {
        var current = self
        for component in path.components {
            switch component {
            case .key(let key):
                guard let next = current[key] else { return nil }
                current = next
            case .index(let index):
                guard let array = current.arrayValue, array.indices.contains(index) else { return nil }
                current = array[index]
            }
        }
        return current
    }

    /// A short rendering for messages: strings quoted, containers summarised.
    public var description: String {
        switch content {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .integer(let value): return value.description
        case .real(let value): return Value.format(real: value)
        case .string(let value): return Value.quote(value)
        case .date(let value): return value.description
        case .data(let value): return "<\(value.count) bytes>"
        case .array(let values): return "array of \(values.count)"
        case .dictionary(let members): return "dictionary of \(members.count)"
        }
    }

    /// Structural equality in document order. Types are distinct (1 ≠ 1.0, `true` ≠ 1);
    /// strings and keys are equal only when their Unicode scalars are; locations do not count.
    public static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs.content, rhs.content) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.real(let a), .real(let b)): return a == b
        case (.string(let a), .string(let b)): return Value.sameScalars(a, b)  // by Unicode scalars, not canonical equivalence
        case (.date(let a), .date(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.dictionary(let a), .dictionary(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// Whether two strings have the same Unicode scalars: the same UTF-8 bytes, compared in
    /// place when both are contiguous (native strings are), and byte by byte otherwise.
    static func sameScalars(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.utf8
        let right = rhs.utf8
        guard left.count == right.count else { return false }
        let compared = left.withContiguousStorageIfAvailable { a in
            right.withContiguousStorageIfAvailable { b in
                a.isEmpty || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
            }
        }
        if let equal = compared ?? nil { return equal }
        return left.elementsEqual(right)
    }

    /// The shortest decimal text that reads back as the same `Double`.
    public static func format(real value: Double) -> String {
        value.description
    }

    /// A number as people write it: `2`, not `2.0`; `1e+20` where digits would run long.
    public static func describe(number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : number.description
    }

    /// The most characters `quote` shows of a string; a longer one is cut short with `…` and
    /// its size, so that a diagnostic about a huge value stays one readable line.
    public static let maximumQuotedLength = 100

    /// A key in double quotes, as `quote(_:)` quotes a string.
    public static func quote(_ key: Key) -> String {
        quote(key.string)
    }

    /// A string in double quotes, escaped as in JSON (`appendEscaped`); cut short after
    /// `maximumQuotedLength` characters.
    public static func quote(_ text: String) -> String {
        var result = "\""
        var shown = 0
        for scalar in text.unicodeScalars {
            if shown == maximumQuotedLength {
                return result + "…\" (\(text.utf8.count) bytes)"
            }
            shown += 1
            if isInvisible(scalar) {
                // What a reader cannot see must not hide in a message: a zero-width space in a
                // strategy name, a right-to-left override in a key.
                result += "\\u" + String(format: "%04X", scalar.value)
            } else {
                appendEscaped(scalar, to: &result)
            }
        }
        return result + "\""
    }

    /// True for a scalar that prints as nothing or reorders what follows: the controls beyond
    /// ASCII's (DEL, C1), format characters (zero-width spaces and joiners, bidirectional
    /// controls, the byte-order mark) and the line and paragraph separators. `quote` writes
    /// them as `\uXXXX`.
    public static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .format, .lineSeparator, .paragraphSeparator: return true
        case .control: return scalar.value >= 0x7F
        default: return false
        }
    }

    /// Appends `scalar` as it stands inside a JSON string literal: `"` and `\` escaped, the
    /// control characters as `\n`, `\r`, `\t`, `\b`, `\f` or `\u00XX`. The one escaper of the
    /// engine: diagnostics quote with it and `JSONWriter` writes with it.
    public static func appendEscaped(_ scalar: Unicode.Scalar, to output: inout String) {
        switch scalar {
        case "\"": output += "\\\""
        case "\\": output += "\\\\"
        case "\n": output += "\\n"
        case "\r": output += "\\r"
        case "\t": output += "\\t"
        case "\u{08}": output += "\\b"
        case "\u{0C}": output += "\\f"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default:
            output.unicodeScalars.append(scalar)
        }
    }
}

extension OrderedDictionary where Key == TimelineEngineValueTree.Value.Key {
    /// The member under the key spelled `key`, compared by Unicode scalars.
    public subscript(_ key: String) -> Value? {
        get { self[Key(key)] }
        set { self[Key(key)] = newValue }
    }

    /// Removes the member under the key spelled `key`.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> Value? {
        removeValue(forKey: Key(key))
    }
}
