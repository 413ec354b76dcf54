import Foundation
import JSONSchema
import JSONText
import ValueTree

/// The JSON Schema of `SocialFusionTimelineConfiguration`.
///
/// `embedded` is `schemas/SocialFusionTimelineConfiguration.schema.json`, composed from the
/// built-in strategies and compiled into the library. A registry with other strategies (an
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

    /// The schema of the built-in strategies, embedded at build time.
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
