import Configuration
import JSONText
import StrategyKit
import ValueTree

/// Composes the strategies' parameter schemas into the configuration schema: `$defs/stage`
/// accepts exactly the registered stage names, each with its own parameters, `$defs/cachePolicy`
/// the registered cache policies, `$defs/networkPolicy` the network policies, and `$defs/sink` the registered log sinks. `schemas/SocialFusionTimelineConfiguration.schema.json` is this
/// composition; a test keeps it in step with the registry.
public enum ConfigurationSchemaComposer {
    /// `base` with its stage and sink definitions generated from `registry`.
    public static func compose(_ base: Value, registry: StrategyRegistry = BuiltInStrategies.registry) -> Value {
        guard var root = base.dictionaryValue else { return base }
        var definitions = root["$defs"]?.value.dictionaryValue ?? [:]
        definitions["stage"] = Value.Member(value: definition(
            title: "Pipeline stage",
            description: "One stage of the restoration pipeline: the registered strategy's name under Strategy, and its parameters beside it. A composition (FirstMatch, BestConfidence, WeightedVote) lists its own stages under Stages.",
            nameKey: "Strategy", types: registry.stageTypes))
        definitions["cachePolicy"] = Value.Member(value: definition(
            title: "Cache policy",
            description: "One cache policy: the registered policy's name under Strategy, and its parameters beside it. CacheChain lists its own policies under Stages.",
            nameKey: "Strategy", types: registry.types(of: .cache), stagesReference: "#/$defs/cachePolicy"))
        definitions["networkPolicy"] = Value.Member(value: definition(
            title: "Network policy",
            description: "The retry policy for refreshing timelines: the registered policy's name under Strategy, and its parameters beside it.",
            nameKey: "Strategy", types: registry.types(of: .network)))
        definitions["sink"] = Value.Member(value: definition(
            title: "Log sink",
            description: "One log destination: the registered sink's name under Sink, and its options beside it.",
            nameKey: "Sink", types: registry.types(of: .logSink)))
        root["$defs"] = Value.Member(value: Value(.dictionary(definitions)))
        return Value(.dictionary(root))
    }

    /// The composed schema as the text of the schema file.
    public static func composedText(registry: StrategyRegistry = BuiltInStrategies.registry) -> String {
        (try? JSONWriter(style: .pretty).write(compose(ConfigurationSchema.document, registry: registry))) ?? ""
    }

    /// The schema of a JSON configuration file as users write it: the configuration under
    /// `SocialFusionTimelineConfiguration`, and `$schema` beside it so that editors find this
    /// schema. Self-contained: the configuration schema is its `$defs/configuration`, and that
    /// schema's own definitions sit beside it, where its `#/$defs/…` references point.
    public static func fileSchema(registry: StrategyRegistry = BuiltInStrategies.registry) -> Value {
        let composed = compose(ConfigurationSchema.document, registry: registry)
        guard var configuration = composed.dictionaryValue else { return composed }
        var definitions = configuration.removeValue(forKey: "$defs")?.value.dictionaryValue ?? [:]
        configuration.removeValue(forKey: "$schema")
        definitions["configuration"] = Value.Member(value: Value(.dictionary(configuration)))
        return .dictionary([
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("title", .string("SocialFusionTimelineConfiguration file")),
            ("description", .string("A JSON configuration file as users write it: the configuration under \(ConfigurationSchema.rootKey), and, for editors, \"$schema\" naming this file. The configuration itself is $defs/configuration, the schema of SocialFusionTimelineConfiguration.schema.json.")),
            ("type", .string("object")),
            ("properties", .dictionary([
                ("$schema", .dictionary([("description", .string("Where editors find this schema.")), ("type", .string("string"))])),
                (ConfigurationSchema.rootKey, .dictionary([("$ref", .string("#/$defs/configuration"))])),
            ])),
            ("required", .array([.string(ConfigurationSchema.rootKey)])),
            ("additionalProperties", .bool(false)),
            ("$defs", Value(.dictionary(definitions))),
        ])
    }

    /// `fileSchema` as the text of its file.
    public static func fileSchemaText(registry: StrategyRegistry = BuiltInStrategies.registry) -> String {
        (try? JSONWriter(style: .pretty).write(fileSchema(registry: registry))) ?? ""
    }

    static func definition(title: String, description: String, nameKey: String, types: [StrategyType],
                           stagesReference: String = "#/$defs/stage") -> Value {
        let names = types.map(\.name)
        let branches: [Value] = types.map { type in
            var properties: [(String, Value)] = [(nameKey, .bool(true))]
            for (name, member) in type.parameterSchema["properties"]?.dictionaryValue ?? [:] {
                properties.append((name.string, member.value))
            }
            if type.isComposition {
                properties.append(("Stages", .dictionary([
                    ("description", .string("The stages this composition combines, in order.")),
                    ("type", .string("array")), ("items", .dictionary([("$ref", .string(stagesReference))])), ("minItems", .integer(1)),
                ])))
            }
            var then: [(String, Value)] = [("properties", .dictionary(properties))]
            var required = type.parameterSchema["required"]?.arrayValue ?? []
            if type.isComposition { required.append(.string("Stages")) }
            if !required.isEmpty { then.append(("required", .array(required))) }
            then.append(("additionalProperties", .bool(false)))
            return .dictionary([
                ("if", .dictionary([
                    ("properties", .dictionary([(nameKey, .dictionary([("const", .string(type.name))]))])),
                    ("required", .array([.string(nameKey)])),
                ])),
                ("then", .dictionary(then)),
            ])
        }
        let summaries = types.map { "\($0.name): \($0.summary)" }.joined(separator: " ")
        return .dictionary([
            ("title", .string(title)),
            ("description", .string(description)),
            ("type", .string("object")),
            ("properties", .dictionary([
                (nameKey, .dictionary([
                    ("title", .string(nameKey)),
                    ("description", .string("The registered name. \(summaries)")),
                    ("type", .string("string")),
                    ("enum", .array(names.map(Value.string))),
                ])),
            ])),
            ("required", .array([.string(nameKey)])),
            ("allOf", .array(branches)),
        ])
    }
}
