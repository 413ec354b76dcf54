import Foundation
import TimelineEngineValueTree

/// Checks a schema document's keywords before use, compiles its regular expressions and makes
/// sure every `$ref` resolves.
///
/// Every command that reads a configuration checks the configuration schema first, so the check
/// is built for start-up: a keyword is looked up once in a table, a schema's JSON Pointer is
/// written out only for an error, and a reference is resolved once however often it is used.
struct SchemaCompiler {
    let root: Value
    var patterns: [String: CompiledPattern] = [:]
    /// The references already resolved.
    private var resolved: Set<String> = []
    /// The JSON Pointer tokens from the root to the keyword being checked, escaped only for an
    /// error.
    private var tokens: [String] = []

    static let typeNames: Set<String> = ["null", "boolean", "object", "array", "number", "string", "integer"]

    /// What the check asks of a keyword's value.
    private enum Rule {
        case type, enumeration, number, multipleOf, count, boolean, pattern, required, dependentRequired
        case schemaMap, schema, schemaList, reference
    }

    /// Every keyword with a rule; other keywords are annotations or unknown, and pass.
    private static let rules: [String: Rule] = {
        var rules: [String: Rule] = [
            "type": .type, "enum": .enumeration, "multipleOf": .multipleOf, "pattern": .pattern,
            "required": .required, "dependentRequired": .dependentRequired, "$ref": .reference,
        ]
        for keyword in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] { rules[keyword] = .number }
        for keyword in ["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains"] {
            rules[keyword] = .count
        }
        for keyword in ["uniqueItems", "deprecated"] { rules[keyword] = .boolean }
        for keyword in ["properties", "patternProperties", "$defs", "dependentSchemas"] { rules[keyword] = .schemaMap }
        for keyword in [
            "additionalProperties", "items", "not", "contains", "if", "then", "else", "propertyNames",
            "unevaluatedProperties", "unevaluatedItems",
        ] {
            rules[keyword] = .schema
        }
        for keyword in ["prefixItems", "allOf", "anyOf", "oneOf"] { rules[keyword] = .schemaList }
        return rules
    }()

    init(root: Value) {
        self.root = root
    }

    /// An error at the current keyword.
    private func error(_ message: String, _ value: Value?) -> SchemaError {
        SchemaError(schemaPath: tokens.map { "/" + SchemaCompiler.escape($0) }.joined(), message: message, location: value?.location)
    }

    /// Checks `schema`, the whole document when `tokens` is empty.
    mutating func check(_ schema: Value) throws(SchemaError) {
        if case .bool = schema.content { return }
        guard let object = schema.dictionaryValue else {
            throw error("a schema must be an object or a boolean, found \(schema.typeName)", schema)
        }
        for (keyword, member) in object {
            guard let rule = Self.rules[keyword.string] else { continue }
            let value = member.value
            tokens.append(keyword.string)
            defer { tokens.removeLast() }
            try check(value, as: rule, keyword: keyword.string)
        }
    }

    private mutating func check(_ value: Value, as rule: Rule, keyword: String) throws(SchemaError) {
        switch rule {
        case .type:
            let names: [Value] = value.arrayValue ?? [value]
            for name in names {
                guard let text = name.stringValue, SchemaCompiler.typeNames.contains(text) else {
                    throw error("\"type\" must name one of \(SchemaCompiler.typeNames.sorted().joined(separator: ", "))", name)
                }
            }
        case .enumeration:
            guard value.arrayValue != nil else { throw error("\"enum\" must be an array", value) }
        case .number:
            guard value.numberValue != nil else { throw error("\"\(keyword)\" must be a number", value) }
        case .multipleOf:
            guard let number = value.numberValue, number > 0 else {
                throw error("\"multipleOf\" must be a number greater than 0", value)
            }
        case .count:
            guard SchemaCompiler.nonNegativeInteger(value) != nil else {
                throw error("\"\(keyword)\" must be a non-negative integer", value)
            }
        case .boolean:
            guard value.boolValue != nil else { throw error("\"\(keyword)\" must be a boolean", value) }
        case .pattern:
            guard let text = value.stringValue else { throw error("\"pattern\" must be a string", value) }
            try compile(text, value: value)
        case .required:
            guard let names = value.arrayValue, names.allSatisfy({ $0.stringValue != nil }) else {
                throw error("\"required\" must be an array of strings", value)
            }
        case .dependentRequired:
            guard let members = value.dictionaryValue,
                members.values.allSatisfy({ $0.value.arrayValue?.allSatisfy { $0.stringValue != nil } == true })
            else { throw error("\"dependentRequired\" must map names to arrays of strings", value) }
        case .schemaMap:
            guard let members = value.dictionaryValue else {
                throw error("\"\(keyword)\" must be an object of schemas", value)
            }
            let namesArePatterns = keyword == "patternProperties"
            for (name, sub) in members {
                if namesArePatterns { try compile(name.string, value: sub.value) }
                tokens.append(name.string)
                defer { tokens.removeLast() }
                try check(sub.value)
            }
        case .schema:
            try check(value)
        case .schemaList:
            guard let list = value.arrayValue, !list.isEmpty else {
                throw error("\"\(keyword)\" must be a non-empty array of schemas", value)
            }
            for (index, sub) in list.enumerated() {
                tokens.append(String(index))
                defer { tokens.removeLast() }
                try check(sub)
            }
        case .reference:
            guard let reference = value.stringValue else { throw error("\"$ref\" must be a string", value) }
            if resolved.contains(reference) { return }
            guard reference.hasPrefix("#") else {
                throw error("only local references (\"#/…\") are supported, found \(Value.quote(reference))", value)
            }
            guard SchemaCompiler.resolve(reference: reference, in: root) != nil else {
                throw error("\"$ref\" \(Value.quote(reference)) does not resolve to a schema", value)
            }
            resolved.insert(reference)
        }
    }

    private mutating func compile(_ pattern: String, value: Value) throws(SchemaError) {
        if patterns[pattern] != nil { return }
        do {
            patterns[pattern] = CompiledPattern(regex: try NSRegularExpression(pattern: pattern, options: []))
        } catch {
            throw self.error("pattern \(Value.quote(pattern)) is not a valid regular expression", value)
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
        let pointer = fragment.utf8.contains(UInt8(ascii: "%")) ? fragment.removingPercentEncoding ?? fragment : fragment
        return resolve(pointer: pointer, in: root)
    }

    static func resolve(pointer: String, in root: Value) -> Value? {
        if pointer.isEmpty { return root }
        guard pointer.hasPrefix("/") else { return nil }
        var current = root
        for rawToken in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let token =
                rawToken.utf8.contains(UInt8(ascii: "~"))
                ? rawToken.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~") : String(rawToken)
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
