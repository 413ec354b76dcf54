import TimelineEngineValueTree

/// Writes a `Value` tree as JSON text, keeping dictionary order.
///
/// `compact` is what `plutil -convert json` prints (no spaces, one line); `pretty` indents by two
/// spaces. Dates, data, infinities and NaN have no JSON form: writing one throws
/// `JSONWriter.UnrepresentableValue` naming where it is (use the typed form for dates and data).
public struct JSONWriter: Sendable {
    /// The layout: `compact` (one line, no spaces) or `pretty` (indented by two spaces).
    public enum Style: Sendable {
        case compact
        case pretty
    }

    /// A value that JSON cannot hold.
    public struct UnrepresentableValue: Error, Sendable, Equatable, CustomStringConvertible {
        public let path: ValuePath
        public let typeName: String
        public let location: SourceLocation?

        public var description: String {
            "\(typeName) at \(path) has no JSON representation"
        }
    }

    public var style: Style

    public init(style: Style = .compact) {
        self.style = style
    }

    /// The JSON text of `value`, with a final newline in the pretty style.
    public func write(_ value: Value) throws(UnrepresentableValue) -> String {
        var output = ""
        try write(value, path: .root, indent: 0, into: &output)
        if style == .pretty { output += "\n" }
        return output
    }

    private func write(_ value: Value, path: ValuePath, indent: Int, into output: inout String) throws(UnrepresentableValue) {
        switch value.content {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .integer(let integer): output += integer.description
        case .real(let real):
            // JSON has no infinity or NaN; writing "inf" would make a file no reader accepts.
            guard real.isFinite else { throw UnrepresentableValue(path: path, typeName: "non-finite number \(real)", location: value.location) }
            output += Value.format(real: real)
        case .string(let string): JSONWriter.appendQuoted(string, to: &output)
        case .date, .data:
            throw UnrepresentableValue(path: path, typeName: value.typeName, location: value.location)
        case .array(let elements):
            if elements.isEmpty {
                output += "[]"
                return
            }
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                newline(indent + 1, into: &output)
                try write(element, path: path.appending(index: index), indent: indent + 1, into: &output)
            }
            newline(indent, into: &output)
            output += "]"
        case .dictionary(let members):
            if members.isEmpty {
                output += "{}"
                return
            }
            output += "{"
            var first = true
            for (key, member) in members {
                if !first { output += "," }
                first = false
                newline(indent + 1, into: &output)
                JSONWriter.appendQuoted(key.string, to: &output)
                output += style == .pretty ? ": " : ":"
                try write(member.value, path: path.appending(key: key.string), indent: indent + 1, into: &output)
            }
            newline(indent, into: &output)
            output += "}"
        }
    }

    private func newline(_ indent: Int, into output: inout String) {
        guard style == .pretty else { return }
        output += "\n"
        output += String(repeating: "  ", count: indent)
    }

    /// Appends `text` as a JSON string literal.
    public static func appendQuoted(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars { Value.appendEscaped(scalar, to: &output) }
        output += "\""
    }

    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        var output = ""
        appendQuoted(text, to: &output)
        return output
    }
}
