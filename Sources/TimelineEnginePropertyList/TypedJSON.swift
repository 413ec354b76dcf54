import Foundation
import TimelineEngineJSONText
import TimelineEngineValueTree

/// The typed JSON form of a property list, in which every value is a one-key object so that
/// integers, reals, booleans, dates and data stay distinct:
///
/// | plist | typed JSON |
/// |---|---|
/// | `<string>` | `{"string": "…"}` |
/// | `<integer>` | `{"integer": "-12"}` (decimal digits in a string, exact over the whole range) |
/// | `<real>` | `{"real": 0.5}` |
/// | `<true/>`, `<false/>` | `{"bool": true}`, `{"bool": false}` |
/// | `<date>` | `{"date": "2004-10-26T10:33:33Z"}` |
/// | `<data>` | `{"data": "base64 with padding"}` |
/// | `<array>` | `{"array": [value, …]}` |
/// | `<dict>` | `{"dict": [["key", value], …]}` (document order) |
///
/// Containers are printed one child per line, indented by one space per level.
public enum TypedJSON {
    /// The typed JSON text of `value`, with a final newline. `null` has no typed form and throws.
    public static func encode(_ value: Value) throws(PropertyListError) -> String {
        var output = ""
        try encode(value, path: .root, depth: 0, into: &output)
        return output + "\n"
    }

    private static func encode(_ value: Value, path: ValuePath, depth: Int, into output: inout String) throws(PropertyListError) {
        switch value.content {
        case .null:
            throw PropertyListError("null at \(path) has no typed-JSON representation", at: value.location)
        case .bool(let flag): output += flag ? "{\"bool\": true}" : "{\"bool\": false}"
        case .integer(let integer): output += "{\"integer\": \"\(integer)\"}"
        case .real(let real): output += "{\"real\": \(Value.format(real: real))}"
        case .string(let string):
            output += "{\"string\": "
            JSONWriter.appendQuoted(string, to: &output)
            output += "}"
        case .date(let date): output += "{\"date\": \"\(date)\"}"
        case .data(let data): output += "{\"data\": \"\(data.base64EncodedString())\"}"
        case .array(let elements):
            if elements.isEmpty {
                output += "{\"array\": []}"
                return
            }
            output += "{\"array\": [\n"
            for (index, element) in elements.enumerated() {
                output += String(repeating: " ", count: depth + 1)
                try encode(element, path: path.appending(index: index), depth: depth + 1, into: &output)
                output += index == elements.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: " ", count: depth) + "]}"
        case .dictionary(let members):
            if members.isEmpty {
                output += "{\"dict\": []}"
                return
            }
            output += "{\"dict\": [\n"
            for (offset, (key, member)) in members.enumerated() {
                output += String(repeating: " ", count: depth + 1) + "["
                JSONWriter.appendQuoted(key.string, to: &output)
                output += ", "
                try encode(member.value, path: path.appending(key: key.string), depth: depth + 1, into: &output)
                output += offset == members.count - 1 ? "]\n" : "],\n"
            }
            output += String(repeating: " ", count: depth) + "]}"
        }
    }

    /// Reads typed JSON back into a property-list value.
    public static func decode(_ data: Data) throws(PropertyListError) -> Value {
        let json: Value
        do {
            json = try JSONReader().read(data)
        } catch {
            throw PropertyListError(error.message, at: error.location)
        }
        return try decode(json, path: .root)
    }

    private static func decode(_ json: Value, path: ValuePath) throws(PropertyListError) -> Value {
        guard let object = json.dictionaryValue, object.count == 1, let (tag, member) = object.elements.first else {
            throw PropertyListError(
                "typed JSON at \(path): expected an object with exactly one key (string, integer, real, bool, date, data, array or dict)",
                at: json.location)
        }
        let inner = member.value
        func wrong(_ expected: String) -> PropertyListError {
            PropertyListError("typed JSON at \(path): \"\(tag)\" needs \(expected), found \(inner.typeName)", at: inner.location)
        }
        switch tag {
        case "string":
            guard let string = inner.stringValue else { throw wrong("a string") }
            return Value(.string(string), location: json.location)
        case "integer":
            guard let text = inner.stringValue else { throw wrong("a string of decimal digits") }
            guard case .integer(let integer) = IntegerValue.parse(Array(text.utf8)) else {
                throw PropertyListError("typed JSON at \(path): invalid integer \(Value.quote(text))", at: inner.location)
            }
            return Value(.integer(integer), location: json.location)
        case "real":
            guard let number = inner.numberValue else { throw wrong("a number") }
            return Value(.real(number), location: json.location)
        case "bool":
            guard let flag = inner.boolValue else { throw wrong("true or false") }
            return Value(.bool(flag), location: json.location)
        case "date":
            guard let text = inner.stringValue else { throw wrong("a date string") }
            guard let date = DateValue.parse(Array(text.utf8)) else {
                throw PropertyListError("typed JSON at \(path): invalid date \(Value.quote(text))", at: inner.location)
            }
            return Value(.date(date), location: json.location)
        case "data":
            guard let text = inner.stringValue else { throw wrong("a base64 string") }
            guard let data = Data(base64Encoded: text) else {
                throw PropertyListError("typed JSON at \(path): invalid base64", at: inner.location)
            }
            return Value(.data(data), location: json.location)
        case "array":
            guard let elements = inner.arrayValue else { throw wrong("an array") }
            var values: [Value] = []
            for (index, element) in elements.enumerated() {
                values.append(try decode(element, path: path.appending(index: index)))
            }
            return Value(.array(values), location: json.location)
        case "dict":
            guard let pairs = inner.arrayValue else { throw wrong("an array of [key, value] pairs") }
            var members = Value.Dictionary()
            for pair in pairs {
                guard let items = pair.arrayValue, items.count == 2, let key = items[0].stringValue else {
                    throw PropertyListError("typed JSON at \(path): a dict entry must be [\"key\", value]", at: pair.location)
                }
                let value = try decode(items[1], path: path.appending(key: key))
                if members[key] != nil {
                    throw PropertyListError("typed JSON at \(path): duplicate key \(Value.quote(key))", at: items[0].location)
                }
                members[key] = Value.Member(keyLocation: items[0].location, value: value)
            }
            return Value(.dictionary(members), location: json.location)
        default:
            throw PropertyListError("typed JSON at \(path): unknown type \(Value.quote(tag))", at: json.location)
        }
    }
}
