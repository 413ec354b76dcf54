import Foundation
import ValueTree

/// Checks a schema document's keywords before use, compiles its regular expressions and makes
/// sure every `$ref` resolves.
struct SchemaCompiler {
    let root: Value
    var patterns: [String: CompiledPattern] = [:]

    static let typeNames: Set<String> = ["null", "boolean", "object", "array", "number", "string", "integer"]

    init(root: Value) {
        self.root = root
    }

    private func error(_ path: String, _ message: String, _ value: Value?) -> SchemaError {
        SchemaError(schemaPath: path, message: message, location: value?.location)
    }

    mutating func check(_ schema: Value, path: String) throws(SchemaError) {
        if case .bool = schema.content { return }
        guard let object = schema.dictionaryValue else {
            throw error(path, "a schema must be an object or a boolean, found \(schema.typeName)", schema)
        }
        for (keyword, member) in object {
            let value = member.value
            let keywordPath = path + "/" + SchemaCompiler.escape(keyword.string)
            switch keyword {
            case "type":
                let names: [Value] = value.arrayValue ?? [value]
                for name in names {
                    guard let text = name.stringValue, SchemaCompiler.typeNames.contains(text) else {
                        throw error(keywordPath, "\"type\" must name one of \(SchemaCompiler.typeNames.sorted().joined(separator: ", "))", name)
                    }
                }
            case "enum":
                guard value.arrayValue != nil else { throw error(keywordPath, "\"enum\" must be an array", value) }
            case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
                guard value.numberValue != nil else { throw error(keywordPath, "\"\(keyword)\" must be a number", value) }
            case "multipleOf":
                guard let number = value.numberValue, number > 0 else {
                    throw error(keywordPath, "\"multipleOf\" must be a number greater than 0", value)
                }
            case "minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains":
                guard SchemaCompiler.nonNegativeInteger(value) != nil else {
                    throw error(keywordPath, "\"\(keyword)\" must be a non-negative integer", value)
                }
            case "uniqueItems", "deprecated":
                guard value.boolValue != nil else { throw error(keywordPath, "\"\(keyword)\" must be a boolean", value) }
            case "pattern":
                guard let text = value.stringValue else { throw error(keywordPath, "\"pattern\" must be a string", value) }
                try compile(text, path: keywordPath, value: value)
            case "required":
                guard let names = value.arrayValue, names.allSatisfy({ $0.stringValue != nil }) else {
                    throw error(keywordPath, "\"required\" must be an array of strings", value)
                }
            case "dependentRequired":
                guard let members = value.dictionaryValue,
                      members.values.allSatisfy({ $0.value.arrayValue?.allSatisfy { $0.stringValue != nil } == true })
                else { throw error(keywordPath, "\"dependentRequired\" must map names to arrays of strings", value) }
            case "properties", "patternProperties", "$defs", "dependentSchemas":
                guard let members = value.dictionaryValue else {
                    throw error(keywordPath, "\"\(keyword)\" must be an object of schemas", value)
                }
                for (name, sub) in members {
                    if keyword == "patternProperties" { try compile(name.string, path: keywordPath, value: sub.value) }
                    try check(sub.value, path: keywordPath + "/" + SchemaCompiler.escape(name.string))
                }
            case "additionalProperties", "items", "not", "contains", "if", "then", "else", "propertyNames",
                 "unevaluatedProperties", "unevaluatedItems":
                try check(value, path: keywordPath)
            case "prefixItems", "allOf", "anyOf", "oneOf":
                guard let list = value.arrayValue, !list.isEmpty else {
                    throw error(keywordPath, "\"\(keyword)\" must be a non-empty array of schemas", value)
                }
                for (index, sub) in list.enumerated() {
                    try check(sub, path: keywordPath + "/\(index)")
                }
            case "$ref":
                guard let reference = value.stringValue else { throw error(keywordPath, "\"$ref\" must be a string", value) }
                guard reference.hasPrefix("#") else {
                    throw error(keywordPath, "only local references (\"#/…\") are supported, found \(Value.quote(reference))", value)
                }
                guard SchemaCompiler.resolve(reference: reference, in: root) != nil else {
                    throw error(keywordPath, "\"$ref\" \(Value.quote(reference)) does not resolve to a schema", value)
                }
            default:
                break // annotations and unknown keywords
            }
        }
    }

    private mutating func compile(_ pattern: String, path: String, value: Value) throws(SchemaError) {
        if patterns[pattern] != nil { return }
        do {
            patterns[pattern] = CompiledPattern(regex: try NSRegularExpression(pattern: pattern, options: []))
        } catch {
            throw self.error(path, "pattern \(Value.quote(pattern)) is not a valid regular expression", value)
        }
    }

    static func nonNegativeInteger(_ value: Value) -> Int? {
        switch value.content {
        case .integer(let integer): return integer.isNegative ? nil : Int(clamping: integer.magnitude)
        case .real(let real) where real >= 0 && real == real.rounded() && real < 1e18: return Int(real)
        default: return nil
        }
    }

    /// Escapes a JSON Pointer token (`~` → `~0`, `/` → `~1`).
    static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
        var escaped = ""
        for character in token {
            switch character {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Resolves `#`, `#/a/b` (JSON Pointer in a URI fragment, percent-decoded) in `root`.
    static func resolve(reference: String, in root: Value) -> Value? {
        guard reference.hasPrefix("#") else { return nil }
        let fragment = String(reference.dropFirst())
        let pointer = fragment.removingPercentEncoding ?? fragment
        return resolve(pointer: pointer, in: root)
    }

    static func resolve(pointer: String, in root: Value) -> Value? {
        if pointer.isEmpty { return root }
        guard pointer.hasPrefix("/") else { return nil }
        var current = root
        for rawToken in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let token = rawToken.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            if let members = current.dictionaryValue {
                guard let next = members[token] else { return nil }
                current = next.value
            } else if let elements = current.arrayValue, let index = Int(token), elements.indices.contains(index) {
                current = elements[index]
            } else {
                return nil
            }
        }
        return current
    }
}
