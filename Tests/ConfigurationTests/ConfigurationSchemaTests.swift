import EngineConfiguration
import Foundation
import PropertyList
import Testing
import TestSupport
import ValueTree

@Suite("Configuration schema", .timeLimit(.minutes(10)))
struct ConfigurationSchemaTests {
    @Test("the embedded schema is byte for byte schemas/SocialFusionTimelineConfiguration.schema.json")
    func embeddedCopy() throws {
        let file = try String(contentsOf: Fixtures.repositoryURL("schemas/SocialFusionTimelineConfiguration.schema.json"), encoding: .utf8)
        #expect(ConfigurationSchema.text == file, "run schemas/embed-in-sources.sh after editing the schema")
    }

    static func properties(_ schema: Value, root: Value) -> [(String, Value)] {
        var schema = schema
        if let reference = schema["$ref"]?.stringValue, let target = ConfigurationSchema.embedded.compiled.subschema(at: String(reference.dropFirst())) {
            schema = target
        }
        return schema["properties"]?.dictionaryValue?.map { ($0.key.string, $0.value.value) } ?? []
    }

    @Test("every key has a title, a description and a default")
    func documented() {
        let root = ConfigurationSchema.embedded.document
        for (section, sectionSchema) in Self.properties(root, root: root) {
            for keyword in ["title", "description", "default"] {
                #expect(sectionSchema[keyword] != nil, "\(section) lacks \(keyword)")
            }
            for (key, keySchema) in Self.properties(sectionSchema, root: root) {
                for keyword in ["title", "description", "default"] {
                    #expect(keySchema[keyword] != nil, "\(section).\(key) lacks \(keyword)")
                }
            }
        }
    }

    @Test("the commented example shows every key that is not deprecated")
    func commentedExampleIsComplete() throws {
        let example = try PropertyListReader().read(contentsOf: Fixtures.repositoryURL("config/SocialFusionTimelineConfiguration.commented.plist"))
        let root = ConfigurationSchema.embedded.document
        for (section, sectionSchema) in Self.properties(root, root: root) {
            for (key, keySchema) in Self.properties(sectionSchema, root: root) where keySchema["deprecated"] != .bool(true) {
                #expect(example[section]?[key] != nil, "\(section).\(key) is missing from the commented example")
            }
        }
    }

    @Test("the defaults in the schema validate against the schema")
    func defaultsAreValid() {
        let resolved = ConfigurationLoader().read(data: Data("{}".utf8)).resolved
        #expect(ConfigurationSchema.embedded.compiled.validate(resolved).issues.isEmpty)
    }
}
