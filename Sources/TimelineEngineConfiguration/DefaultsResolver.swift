import TimelineEngineJSONSchema
import TimelineEngineValueTree

/// Fills in missing keys from a schema's `default` annotations.
///
/// JSON Schema's `default` only annotates; filling it in is our own behaviour: a missing key
/// whose schema has a `default` gets that value, and dictionaries (present or just added) are
/// filled recursively. Deprecated keys are never added. Present values are never changed. `$ref`s to local
/// definitions are followed.
public enum DefaultsResolver {
    public static func fill(_ value: Value, schema: Value) -> Value {
        fill(value, schema: schema, root: schema, depth: 0)
    }

    private static func fill(_ value: Value, schema: Value, root: Value, depth: Int) -> Value {
        guard depth < 64 else { return value }
        var schema = schema
        if let reference = schema["$ref"]?.stringValue, reference.hasPrefix("#"),
            let target = JSONSchema.resolveLocal(reference, in: root)
        {
            schema = target
        }
        guard var members = value.dictionaryValue, let properties = schema["properties"]?.dictionaryValue else {
            if let elements = value.arrayValue, let items = schema["items"] {
                var result = value
                result.content = .array(elements.map { fill($0, schema: items, root: root, depth: depth + 1) })
                return result
            }
            return value
        }
        for (key, property) in properties {
            if let existing = members[key] {
                members[key]?.value = fill(existing.value, schema: property.value, root: root, depth: depth + 1)
            } else if property.value["deprecated"] != .bool(true), let defaultValue = property.value["default"] {
                members[key] = Value.Member(value: fill(defaultValue, schema: property.value, root: root, depth: depth + 1))
            }
        }
        var result = value
        result.content = .dictionary(members)
        return result
    }
}
