import Foundation
import TimelineEngineJSONSchema
import TimelineEngineJSONText
import TimelineEngineValueTree

/// The JSON Schema of `SocialFusionTimelineConfiguration`.
///
/// `declared` is the schema of the sections and keys as their settings declare them;
/// `embedded` is `schemas/SocialFusionTimelineConfiguration.schema.json`, that schema composed
/// with the built-in strategies and compiled into the library. A registry with other strategies (an
/// app's own, or plugins) composes its own with `StrategyRegistry.configurationSchema`, and the
/// loader validates against that.
public struct ConfigurationSchema: Sendable {
    /// The key under which an `Info.plist` (or a wrapping property list) holds the configuration.
    public static let rootKey = "SocialFusionTimelineConfiguration"

    /// The schema document.
    public let document: Value
    /// The compiled schema used by every validation.
    public let compiled: JSONSchema

    /// Compiles `document`.
    public init(document: Value) throws(SchemaError) {
        self.document = document
        compiled = try JSONSchema(document)
    }

    /// The section names the schema knows (`PositionPersistence`, `Restoration`, …).
    public var sections: [Value.Key] {
        document["properties"]?.dictionaryValue?.keys.map { $0 } ?? []
    }

    /// The schema the declarations make: every section and key (`TimelineConfiguration.sections`,
    /// `pluginsKey`), without the definitions of registered components that
    /// `ConfigurationSchemaComposer` adds (`$defs/restoration`, `$defs/merge`, …).
    public static var declared: Value {
        let properties =
            TimelineConfiguration.sections.map { ($0.name, $0.schema) }
            + [(TimelineConfiguration.pluginsKey.name, TimelineConfiguration.pluginsKey.schema)]
        return .dictionary([
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("title", .string(rootKey)),
            (
                "description",
                .string(
                    "Configuration of TimelineEngine, which keeps a reader's place in a timeline. Stored as the \(rootKey) dictionary of an Info.plist, as a standalone property list, or as the same structure in JSON. Every key is optional; a missing key takes its default."
                )
            ),
            ("type", .string("object")),
            ("default", .dictionary([])),
            ("properties", .dictionary(properties)),
            ("additionalProperties", .bool(false)),
        ])
    }

    /// The schema of the built-in strategies: `declared` composed with their definitions,
    /// generated into the library (`Strategies/generate.sh`) for code that has no registry.
    public static let embedded: ConfigurationSchema = {
        let document: Value
        do {
            document = try JSONReader().read(text)
        } catch {
            preconditionFailure("the embedded configuration schema is not valid JSON: \(error)")
        }
        do {
            return try ConfigurationSchema(document: document)
        } catch {
            preconditionFailure("the embedded configuration schema is not a usable schema: \(error)")
        }
    }()
}
