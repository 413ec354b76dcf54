import Foundation
import TimelineEngineValueTree

/// Writes a `Value` tree as a canonical XML property list: the XML declaration, Apple's DOCTYPE,
/// `<plist version="1.0">`, one element per line indented with tabs, `<dict/>` and `<array/>`
/// for empty containers, base64 data in indented lines. Dictionary order is kept, so reading and
/// writing again preserves every value, its type and key order.
///
/// `null` (from JSON) has no plist form, and neither do characters XML 1.0 cannot carry (such as
/// U+0000); both throw, naming the key path.
public struct PropertyListWriter: Sendable {
    public init() {}

    /// The document as UTF-8 text, ending with a newline.
    public func write(_ value: Value) throws(PropertyListError) -> String {
        var output = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">

            """
        try write(value, path: .root, depth: 0, into: &output)
        output += "</plist>\n"
        return output
    }

    /// The document as UTF-8 bytes.
    public func data(_ value: Value) throws(PropertyListError) -> Data {
        Data(try write(value).utf8)
    }

    private func write(_ value: Value, path: ValuePath, depth: Int, into output: inout String) throws(PropertyListError) {
        let indent = String(repeating: "\t", count: depth)
        switch value.content {
        case .null:
            throw PropertyListError("null at \(path) has no property-list representation", at: value.location)
        case .bool(let flag):
            output += indent + (flag ? "<true/>\n" : "<false/>\n")
        case .integer(let integer):
            output += indent + "<integer>\(integer)</integer>\n"
        case .real(let real):
            guard real.isFinite else {
                throw PropertyListError("real \(real) at \(path) is not finite", at: value.location)
            }
            output += indent + "<real>\(Value.format(real: real))</real>\n"
        case .string(let string):
            output += indent + "<string>"
            try PropertyListWriter.appendEscaped(string, path: path, location: value.location, to: &output)
            output += "</string>\n"
        case .date(let date):
            output += indent + "<date>\(date)</date>\n"
        case .data(let data):
            output += indent + "<data>\n"
            // As CPython's plistlib and Apple's tools: lines of at most 76 columns, counting a tab
            // as 8, and never fewer than 16 characters.
            let lineLength = max(16, 76 - depth * 8)
            for line in Base64.encode(data, lineLength: lineLength) where !line.isEmpty {
                output += indent + line + "\n"
            }
            output += indent + "</data>\n"
        case .array(let elements):
            if elements.isEmpty {
                output += indent + "<array/>\n"
                return
            }
            output += indent + "<array>\n"
            for (index, element) in elements.enumerated() {
                try write(element, path: path.appending(index: index), depth: depth + 1, into: &output)
            }
            output += indent + "</array>\n"
        case .dictionary(let members):
            if members.isEmpty {
                output += indent + "<dict/>\n"
                return
            }
            output += indent + "<dict>\n"
            for (key, member) in members {
                output += indent + "\t<key>"
                try PropertyListWriter.appendEscaped(key.string, path: path.appending(key: key.string), location: member.keyLocation, to: &output)
                output += "</key>\n"
                try write(member.value, path: path.appending(key: key.string), depth: depth + 1, into: &output)
            }
            output += indent + "</dict>\n"
        }
    }

    /// Escapes `&`, `<` and `>`, and writes a carriage return as `&#13;` so that it survives XML's
    /// line-end normalisation.
    static func appendEscaped(_ text: String, path: ValuePath, location: SourceLocation?, to output: inout String) throws(PropertyListError) {
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\r": output += "&#13;"
            case "\t", "\n":
                output.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                let code = String(scalar.value, radix: 16, uppercase: true)
                throw PropertyListError(
                    "string at \(path) contains U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code), which XML 1.0 cannot represent",
                    at: location)
            default:
                output.unicodeScalars.append(scalar)
            }
        }
    }
}
