import TimelineEngineConfiguration
import TimelineEngineJSONText
import TimelineEngineLogging
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// Composes the strategies' parameter schemas into the configuration schema: for each kind
/// with a configuration face (`StrategyKind.ConfigurationFace`), `$defs/<kind>` accepts exactly
/// the registered names of that kind, each with its own parameters (`$defs/restoration`: the
/// pipeline's stages, `$defs/merge`: the merge policies, …), and `$defs/sink` the log sinks. A configuration key that a parameter inherits takes its type, allowed values
/// and default from that parameter's declaration, and `Restoration.Composition` lists the
/// registered compositions. `schemas/SocialFusionTimelineConfiguration.schema.json` is this
/// composition for the built-ins; a test keeps it in step with the registry.
public enum ConfigurationSchemaComposer {
    /// `base` (by default the schema the settings declare) with its strategy definitions
    /// generated from `registry`.
    public static func compose(_ base: Value = ConfigurationSchema.declared, registry: StrategyRegistry = BuiltInStrategies.registry) -> Value {
        guard var root = base.dictionaryValue else { return base }
        var definitions = root["$defs"]?.value.dictionaryValue ?? [:]
        // Each kind a key names: its registered types under `$defs/<kind>`, written as the kind's
        // configuration face says.
        var faced: [StrategyKind] = []
        for kind in registry.kinds {
            guard let face = kind.configuration else { continue }
            faced.append(kind)
            let types = registry.types.filter { $0.kind == kind || face.alsoLists.contains($0.kind.rawValue) }
            let compositions = types.filter(\.isComposition).map(\.name)
            let description =
                face.description
                + (compositions.isEmpty
                    ? "" : " A composition (\(compositions.joined(separator: ", "))) lists the components it combines under Stages.")
            definitions[Value.Key(kind.rawValue)] = Value.Member(
                value: face.form == .nameOrDictionary
                    ? nameOrDefinition(title: face.title, description: description, types: types, stagesReference: kind.schemaReference)
                    : definition(
                        title: face.title, description: description, nameKey: ComponentSpec.strategyKey, entries: types.map(Entry.init),
                        stagesReference: kind.schemaReference))
        }
        definitions["sink"] = Value.Member(
            value: definition(
                title: "Log sink",
                description: "One log destination: the sink's name under Sink, and its options beside it.",
                nameKey: "Sink",
                entries: registry.logSinks.map { Entry(name: $0.name, summary: $0.summary, schema: $0.optionSchema, composes: false) }))
        // A parameter schema's local references (`#/$defs/…`, `#`) point into that schema; in the
        // composition it sits beside others, so it is kept whole under a name of its own and its
        // references are rewritten to point there.
        for type in registry.types where containsLocalReference(type.parameterSchema) {
            var members = localised(type.parameterSchema, name: type.name).dictionaryValue ?? [:]
            members["additionalProperties"] = Value.Member(value: .bool(false))
            definitions[Value.Key(parameterDefinition(type.name))] = Value.Member(value: Value(.dictionary(members)))
        }
        root["$defs"] = Value.Member(value: Value(.dictionary(definitions)))
        var composed = writingDefaults(of: faced.filter { $0.configuration?.form == .dictionary }, in: Value(.dictionary(root)))
        // The first declaration that inherits a key decides its schema (built-ins come first);
        // a later one shares the key's value and its own default stays its own.
        var claimed: Set<InheritedKey> = []
        for type in registry.types {
            for declaration in type.parameters {
                guard let inherited = declaration.inherits, claimed.insert(inherited).inserted else { continue }
                composed = replacing([inherited.section, inherited.key], in: composed) { key in
                    var members = key.dictionaryValue ?? [:]
                    for name in ["type", "enum", "minimum", "maximum", "exclusiveMinimum", "default"] { members.removeValue(forKey: Value.Key(name)) }
                    for (name, value) in declaration.keySchema { members[Value.Key(name)] = Value.Member(value: value) }
                    return Value(.dictionary(members))
                }
            }
        }
        composed = replacing([RestorationSettings.name, "Composition"], in: composed) { key in
            var members = key.dictionaryValue ?? [:]
            members["enum"] = Value.Member(value: .array(compositionNames(registry).map(Value.string)))
            return Value(.dictionary(members))
        }
        // The keys that follow others when absent show what they follow by default.
        let defaults = TimelineConfiguration.declaredDefaults
        for (keys, specs) in [
            ([RestorationSettings.name, "Pipeline"], DefaultComponents.pipeline(for: defaults)),
            ([TimelineCacheSettings.name, "Policy"], DefaultComponents.timelineCache(for: defaults)),
        ] {
            composed = replacing(keys, in: composed) { key in
                var members = key.dictionaryValue ?? [:]
                members["default"] = Value.Member(value: .array(specs.map { $0.written(nameKey: ComponentSpec.strategyKey) }))
                return Value(.dictionary(members))
            }
        }
        return composed
    }

    /// `schema` with the default of every key that names a component of one of `kinds` (which
    /// are always written as dictionaries) written as a dictionary, where its declaration gave
    /// the name alone.
    static func writingDefaults(of kinds: [StrategyKind], in schema: Value) -> Value {
        guard var members = schema.dictionaryValue else { return schema }
        if let reference = members["$ref"]?.value.stringValue, kinds.contains(where: { $0.schemaReference == reference }),
            let name = members["default"]?.value.stringValue
        {
            members["default"]?.value = .dictionary([(ComponentSpec.strategyKey, .string(name))])
        }
        if var properties = members["properties"]?.value.dictionaryValue {
            for (key, property) in properties { properties[key]?.value = writingDefaults(of: kinds, in: property.value) }
            members["properties"]?.value = Value(.dictionary(properties))
        }
        var result = schema
        result.content = .dictionary(members)
        return result
    }

    /// The restoration compositions, which `Restoration.Composition` may name.
    static func compositionNames(_ registry: StrategyRegistry) -> [String] {
        registry.types(of: .restoration).filter { $0.composes == .restoration }.map(\.name)
    }

    /// `schema` with the property schema at the configuration key path `keys` changed by
    /// `change`; unchanged when the schema has no such key.
    static func replacing(_ keys: [String], in schema: Value, _ change: (Value) -> Value) -> Value {
        guard let first = keys.first, var members = schema.dictionaryValue,
            var properties = members["properties"]?.value.dictionaryValue, let property = properties[Value.Key(first)]
        else { return schema }
        properties[Value.Key(first)]?.value =
            keys.count == 1 ? change(property.value) : replacing(Array(keys.dropFirst()), in: property.value, change)
        members["properties"]?.value = Value(.dictionary(properties))
        var result = schema
        result.content = .dictionary(members)
        return result
    }

    /// The composed schema as the text of the schema file; an error names a value that has no
    /// JSON form (a plugin's schema with a non-finite number).
    public static func composedText(registry: StrategyRegistry = BuiltInStrategies.registry) throws(JSONWriter.UnrepresentableValue) -> String {
        try JSONWriter(style: .pretty).write(compose(registry: registry))
    }

    /// The schema of a JSON configuration file as users write it: the configuration under
    /// `SocialFusionTimelineConfiguration`, and `$schema` beside it so that editors find this
    /// schema. Self-contained: the configuration schema is its `$defs/configuration`, and that
    /// schema's own definitions sit beside it, where its `#/$defs/…` references point.
    public static func fileSchema(registry: StrategyRegistry = BuiltInStrategies.registry) -> Value {
        let composed = compose(registry: registry)
        guard var configuration = composed.dictionaryValue else { return composed }
        var definitions = configuration.removeValue(forKey: "$defs")?.value.dictionaryValue ?? [:]
        configuration.removeValue(forKey: "$schema")
        definitions["configuration"] = Value.Member(value: Value(.dictionary(configuration)))
        return .dictionary([
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("title", .string("SocialFusionTimelineConfiguration file")),
            (
                "description",
                .string(
                    "A JSON configuration file as users write it: the configuration under \(ConfigurationSchema.rootKey), and, for editors, \"$schema\" naming this file. The configuration itself is $defs/configuration, the schema of SocialFusionTimelineConfiguration.schema.json."
                )
            ),
            ("type", .string("object")),
            (
                "properties",
                .dictionary([
                    ("$schema", .dictionary([("description", .string("Where editors find this schema.")), ("type", .string("string"))])),
                    (ConfigurationSchema.rootKey, .dictionary([("$ref", .string("#/$defs/configuration"))])),
                ])
            ),
            ("required", .array([.string(ConfigurationSchema.rootKey)])),
            ("additionalProperties", .bool(false)),
            ("$defs", Value(.dictionary(definitions))),
        ])
    }

    /// `fileSchema` as the text of its file.
    public static func fileSchemaText(registry: StrategyRegistry = BuiltInStrategies.registry) throws(JSONWriter.UnrepresentableValue) -> String {
        try JSONWriter(style: .pretty).write(fileSchema(registry: registry))
    }

    /// A component that is written as its name alone (when it needs no parameter) or as a
    /// dictionary, like `Sync.Policy`.
    static func nameOrDefinition(title: String, description: String, types: [StrategyType], stagesReference: String) -> Value {
        let entries = types.map(Entry.init)
        // A type with a required parameter cannot be written as its name alone.
        let needsParameters: [Value] = types.compactMap { type in
            let required = type.parameters.filter(\.isRequired).map(\.name)
            guard !required.isEmpty else { return nil }
            let example = "{Strategy: \(type.name), " + required.map { "\($0): …" }.joined(separator: ", ") + "}"
            return .dictionary([
                (
                    "not",
                    .dictionary([
                        ("const", .string(type.name)),
                        ("description", .string("\(type.name) needs \(required.joined(separator: " and ")): write it as a dictionary, \(example)")),
                    ])
                )
            ])
        }
        var names: [(String, Value)] = [("type", .string("string")), ("enum", .array(entries.map { .string($0.name) }))]
        if !needsParameters.isEmpty { names.append(("allOf", .array(needsParameters))) }
        let object = definition(title: title, description: description, nameKey: "Strategy", entries: entries, stagesReference: stagesReference)
        return .dictionary([
            ("title", .string(title)),
            ("description", .string(description + " " + entries.map { "\($0.name): \($0.summary)" }.joined(separator: " "))),
            ("if", .dictionary([("type", .string("string"))])),
            ("then", .dictionary(names)),
            ("else", object),
        ])
    }

    /// The name under `$defs` of the whole parameter schema of the type `name`.
    static func parameterDefinition(_ name: String) -> String { "parameters.\(name)" }

    static func containsLocalReference(_ schema: Value) -> Bool {
        switch schema.content {
        case .dictionary(let members):
            if members["$ref"]?.value.stringValue?.hasPrefix("#") == true { return true }
            return members.values.contains { containsLocalReference($0.value) }
        case .array(let elements):
            return elements.contains(where: containsLocalReference)
        default:
            return false
        }
    }

    /// `schema` (the parameter schema of the type `name`) with every local reference rewritten
    /// to point into the copy of it kept at `#/$defs/parameters.NAME`.
    /// Where `keysAreNames`, `schema` is a map of names to schemas (`properties`, `$defs`…): a
    /// property called `const` or `$ref` is a schema like any other.
    static func localised(_ schema: Value, name: String, keysAreNames: Bool = false) -> Value {
        guard containsLocalReference(schema) else { return schema }
        var result = schema
        switch schema.content {
        case .dictionary(let members):
            var rewritten = members
            for (key, member) in members {
                if keysAreNames {
                    rewritten[key]?.value = localised(member.value, name: name)
                } else if key == "$ref", let reference = member.value.stringValue, reference.hasPrefix("#") {
                    rewritten[key]?.value.content = .string("#/$defs/\(parameterDefinition(name))" + reference.dropFirst())
                } else if key == "enum" || key == "const" || key == "default" || key == "examples" {
                    continue  // values, not schemas
                } else {
                    let maps: [Value.Key] = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]
                    rewritten[key]?.value = localised(member.value, name: name, keysAreNames: maps.contains(key))
                }
            }
            result.content = .dictionary(rewritten)
        case .array(let elements):
            result.content = .array(elements.map { localised($0, name: name) })
        default:
            break
        }
        return result
    }

    /// What a definition lists: a registered name, its summary, its parameter schema.
    struct Entry {
        var name: String
        var summary: String
        var schema: Value
        var composes: Bool

        init(name: String, summary: String, schema: Value, composes: Bool) {
            self.name = name
            self.summary = summary
            self.schema = schema
            self.composes = composes
        }

        init(_ type: StrategyType) {
            self.init(name: type.name, summary: type.summary, schema: localised(type.parameterSchema, name: type.name), composes: type.isComposition)
        }
    }

    static func definition(
        title: String, description: String, nameKey: String, entries: [Entry], stagesReference: String? = nil
    ) -> Value {
        let names = entries.map(\.name)
        let branches: [Value] = entries.map { entry in
            var properties: [(String, Value)] = [(nameKey, .bool(true))]
            for (name, member) in entry.schema["properties"]?.dictionaryValue ?? [:] {
                properties.append((name.string, member.value))
            }
            if entry.composes {
                properties.append(
                    (
                        "Stages",
                        .dictionary([
                            ("description", .string("The stages this composition combines, in order.")),
                            ("type", .string("array")), ("items", .dictionary([("$ref", .string(stagesReference ?? "#"))])),
                            ("minItems", .integer(1)),
                        ])
                    ))
            }
            var then: [(String, Value)] = [("properties", .dictionary(properties))]
            var required = entry.schema["required"]?.arrayValue ?? []
            if entry.composes { required.append(.string("Stages")) }
            if !required.isEmpty { then.append(("required", .array(required))) }
            then.append(("additionalProperties", .bool(false)))
            return .dictionary([
                (
                    "if",
                    .dictionary([
                        ("properties", .dictionary([(nameKey, .dictionary([("const", .string(entry.name))]))])),
                        ("required", .array([.string(nameKey)])),
                    ])
                ),
                ("then", .dictionary(then)),
            ])
        }
        let summaries = entries.map { "\($0.name): \($0.summary)" }.joined(separator: " ")
        return .dictionary([
            ("title", .string(title)),
            ("description", .string(description)),
            ("type", .string("object")),
            (
                "properties",
                .dictionary([
                    (
                        nameKey,
                        .dictionary([
                            ("title", .string(nameKey)),
                            ("description", .string("The registered name. \(summaries)")),
                            ("type", .string("string")),
                            ("enum", .array(names.map(Value.string))),
                        ])
                    )
                ])
            ),
            ("required", .array([.string(nameKey)])),
            ("allOf", .array(branches)),
        ])
    }
}
