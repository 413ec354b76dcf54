import Foundation
import TimelineEngineJSONText
import TimelineEngineValueTree

/// A JSON Schema (draft 2020-12) ready to validate instances: property lists and JSON alike,
/// since both are read into the same `Value` tree.
///
/// Supported keywords: `type`, `enum`, `const`; `minimum`, `maximum`, `exclusiveMinimum`,
/// `exclusiveMaximum`, `multipleOf`; `minLength`, `maxLength`, `pattern`; `required`,
/// `properties`, `patternProperties`, `additionalProperties`, `propertyNames`,
/// `dependentRequired`, `dependentSchemas`, `minProperties`, `maxProperties`,
/// `unevaluatedProperties`; `items`, `prefixItems`, `contains`, `minContains`, `maxContains`,
/// `minItems`, `maxItems`, `uniqueItems`, `unevaluatedItems`; `allOf`, `anyOf`, `oneOf`, `not`,
/// `if`/`then`/`else`; `$ref` to local JSON Pointers (`#/$defs/…`); boolean schemas. The
/// annotations `title`, `description`, `default`, `examples` and `$comment` are read and never
/// fail; `deprecated: true` yields a warning when the value is present. Unknown keywords are
/// ignored, as the specification requires. Remote `$ref`s are not supported.
public struct JSONSchema: Sendable {
    /// The schema document.
    public let root: Value
    let patterns: [String: CompiledPattern]

    /// Checks the schema's shape, compiles its patterns and resolves its `$ref`s.
    public init(_ root: Value) throws(SchemaError) {
        var compiler = SchemaCompiler(root: root)
        try compiler.check(root)
        self.root = root
        self.patterns = compiler.patterns
    }

    /// Reads a schema from JSON text, then checks it.
    public init(json data: Data) throws {
        try self.init(try JSONReader().read(data))
    }

    /// Validates `instance`, returning every error and warning found (not just the first).
    ///
    /// An instance nested more than a few dozen levels deep is evaluated on a thread with a
    /// large stack (`DeepStack`), so that no document the readers accept can overflow the
    /// caller's stack.
    public func validate(_ instance: Value) -> ValidationResult {
        if instance.nestingDepth(limit: 33) > 32 {
            let schema = self
            return DeepStack.run { schema.evaluate(instance) }
        }
        return evaluate(instance)
    }

    private func evaluate(_ instance: Value) -> ValidationResult {
        let evaluator = Evaluator(root: root, patterns: patterns)
        var outcome = evaluator.evaluate(schema: root, schemaPath: "", instance: instance, path: .root, depth: 0)
        outcome.issues.sort { lhs, rhs in
            switch (lhs.location, rhs.location) {
            case (let l?, let r?): return l < r
            case (nil, _?): return false
            case (_?, nil): return true
            case (nil, nil): return false
            }
        }
        return ValidationResult(issues: outcome.issues)
    }

    /// The subschema at a JSON Pointer inside this schema (`""` is the root).
    public func subschema(at pointer: String) -> Value? {
        SchemaCompiler.resolve(pointer: pointer, in: root)
    }
}

/// A compiled `pattern` or `patternProperties` key. Immutable after creation, and
/// `NSRegularExpression` matching is thread-safe.
// @unchecked: immutable after creation; NSRegularExpression matching is thread-safe.
final class CompiledPattern: @unchecked Sendable {
    let regex: NSRegularExpression

    init(regex: NSRegularExpression) {
        self.regex = regex
    }

    /// Whether the pattern matches anywhere in `text` (patterns are not anchored).
    func matches(_ text: String) -> Bool {
        let range = NSRange(text.startIndex..<text.endIndex, in: text)
        return regex.firstMatch(in: text, options: [], range: range) != nil
    }
}

extension JSONSchema {
    /// Resolves a local reference (`#`, `#/$defs/name`) against a schema document.
    public static func resolveLocal(_ reference: String, in root: Value) -> Value? {
        SchemaCompiler.resolve(reference: reference, in: root)
    }
}
