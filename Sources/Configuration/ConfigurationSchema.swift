import Foundation
import JSONSchema
import ValueTree

/// The JSON Schema of `SocialFusionTimelineConfiguration`, embedded in the library from
/// `schemas/SocialFusionTimelineConfiguration.schema.json` (the single source of truth).
public enum ConfigurationSchema {
    /// The key under which an `Info.plist` (or a wrapping property list) holds the configuration.
    public static let rootKey = "SocialFusionTimelineConfiguration"

    /// The parsed schema document.
    public static let document: Value = {
        do {
            return try JSONTextReading.read(text)
        } catch {
            preconditionFailure("the embedded configuration schema is not valid JSON: \(error)")
        }
    }()

    /// The compiled schema used by every validation.
    public static let schema: JSONSchema = {
        do {
            return try JSONSchema(document)
        } catch {
            preconditionFailure("the embedded configuration schema is not a usable schema: \(error)")
        }
    }()
}
