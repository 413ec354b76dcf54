import Foundation
import Testing
import TimelineEngineConfiguration
import TimelineEnginePropertyList
import TimelineEngineTestSupport
import TimelineEngineValueTree

@Suite("Configuration schema", .timeLimit(.minutes(10)))
struct ConfigurationSchemaTests {
    @Test("the embedded schema is byte for byte schemas/SocialFusionTimelineConfiguration.schema.json")
    func embeddedCopy() throws {
        let file = try String(contentsOf: Fixtures.repositoryURL("schemas/SocialFusionTimelineConfiguration.schema.json"), encoding: .utf8)
        #expect(ConfigurationSchema.text == file, "run Strategies/generate.sh")
    }

    static func properties(_ schema: Value, root: Value) -> [(String, Value)] {
        var schema = schema
        if let reference = schema["$ref"]?.stringValue,
            let target = ConfigurationSchema.embedded.compiled.subschema(at: String(reference.dropFirst()))
        {
            schema = target
        }
        return schema["properties"]?.dictionaryValue?.map { ($0.key.string, $0.value.value) } ?? []
    }

    @Test("every number in the schema, strategies' parameters included, has a largest value the code can hold")
    func numbersAreBounded() {
        var unbounded: [String] = []
        func walk(_ schema: Value, _ path: String) {
            if let members = schema.dictionaryValue {
                let types = members["type"].map { $0.value.arrayValue?.compactMap(\.stringValue) ?? [$0.value.stringValue ?? ""] } ?? []
                if types.contains("number") || types.contains("integer"),
                    members["maximum"] == nil, members["exclusiveMaximum"] == nil, members["enum"] == nil, members["const"] == nil
                {
                    unbounded.append(path)
                }
                for (key, member) in members { walk(member.value, path + "/" + key.string) }
            } else if let elements = schema.arrayValue {
                for (index, element) in elements.enumerated() { walk(element, path + "/\(index)") }
            }
        }
        walk(ConfigurationSchema.embedded.document, "")
        #expect(unbounded == [])
        let loaded = ConfigurationLoader().read(
            data: Data(#"{"Sync": {"DebounceInterval": 1e300, "TombstoneGracePeriod": 0.001}}"#.utf8), fileName: "sync.json")
        #expect(
            loaded.diagnostics.map(\.description) == [
                "sync.json:1:31: error: Sync.DebounceInterval: 1e+300 is greater than the maximum 3600 (allowed: ≥ 0 and ≤ 3600)",
                "sync.json:1:62: error: Sync.TombstoneGracePeriod: 0.001 is less than the minimum 86400 (allowed: ≥ 86400 and ≤ 3153600000)",
            ])
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
