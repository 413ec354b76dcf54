import Foundation
import Testing
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineFallback
import TimelineEngineFirstMatch
import TimelineEngineJSONText
import TimelineEngineRestoration
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineTestSupport
import TimelineEngineValueTree

/// The registry as the one source of truth: declarations, registration, the one factory, the
/// composed schema.
@Suite("Strategy registry", .timeLimit(.minutes(10)))
struct RegistryTests {
    /// A stage whose parameter inherits `Restoration.MinimumConfidence`: it proposes the top
    /// post with that confidence.
    struct Floor: RestorationStage, DeclaredStrategy {
        static let level = Parameter<Double>(
            "Level", help: "The confidence it answers with.", default: 0.25, range: 0...1,
            inherits: RestorationSettings.inheritedKey(\.$minimumConfidence))
        static let type = StrategyType(
            name: "Floor", kind: .restoration, summary: "Answers the top post.",
            parameters: [level.declaration]
        ) { options in
            .restoration(Floor(level: options(level)))
        }
        let level: Double

        func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth: Int) -> Candidate? {
            Candidate(index: 0, confidence: level, method: .fallback, placement: .postAtTop, strategy: name, explanation: "top")
        }
    }

    static func configuration(_ json: String) -> TimelineConfiguration {
        ConfigurationLoader().read(data: Data(json.utf8)).configuration
    }

    @Test("a parameter declaration is its schema and reads its value back")
    func declaration() throws {
        let threshold = Parameter<Double>("Threshold", help: "Least similarity.", default: 0.3, range: 0...1)
        #expect(
            threshold.declaration.schema
                == .dictionary([
                    ("description", .string("Least similarity.")), ("type", .string("number")),
                    ("minimum", .integer(0)), ("maximum", .integer(1)), ("default", .real(0.3)),
                ]))
        #expect(threshold.value(in: StrategyOptions()) == 0.3)
        #expect(threshold.value(in: StrategyOptions(parameters: ["Threshold": Value.Member(value: .integer(1))])) == 1)
        let mode = FallbackStrategy.modeParameter.declaration
        #expect(mode.allowedValues == FallbackStrategy.Mode.allCases.map(\.rawValue))
        #expect(mode.schema["default"] == nil, "an inherited parameter's default belongs to its configuration key")
        #expect(mode.description == "Where to go when no better position is found. Without it, PositionPersistence.FallbackStrategy applies.")
    }

    @Test("a configuration key a parameter inherits takes its allowed values and default from the declaration")
    func inheritedKeysComeFromDeclarations() throws {
        let document = ConfigurationSchema.embedded.document
        let fallback = try #require(document["properties"]?["PositionPersistence"]?["properties"]?["FallbackStrategy"])
        #expect(fallback["enum"]?.arrayValue?.compactMap(\.stringValue) == FallbackStrategy.Mode.allCases.map(\.rawValue))
        #expect(fallback["default"]?.stringValue == FallbackStrategy.modeParameter.defaultValue.rawValue)
        let minimum = try #require(document["properties"]?["Restoration"]?["properties"]?["MinimumConfidence"])
        #expect(minimum["default"]?.numberValue == FirstMatchStrategy.minimumConfidenceParameter.defaultValue)
        let composition = try #require(document["properties"]?["Restoration"]?["properties"]?["Composition"])
        #expect(
            composition["enum"]?.arrayValue?.compactMap(\.stringValue)
                == BuiltInStrategies.registry.types(of: .restoration).filter { $0.composes == .restoration }.map(\.name))
        #expect(TimelineConfiguration.defaults.positionPersistence.fallbackStrategy == "NearestContent")
    }

    @Test("a parameter schema that does not compile, a name registered twice or a bad name is refused at registration")
    func refusedAtRegistration() {
        let broken = StrategyType(
            name: "Broken", kind: .restoration, summary: "",
            parameterSchema: .dictionary([
                ("type", .string("object")),
                (
                    "properties",
                    .dictionary([
                        ("X", .dictionary([("type", .string("whole number"))]))
                    ])
                ),
            ])
        ) { _ in throw StrategyError("never built") }
        #expect(
            throws: RegistryError(
                "Broken: the parameter schema does not compile: schema at /properties/X/type: \"type\" must name one of array, boolean, integer, null, number, object, string"
            )
        ) {
            try StrategyRegistry([broken])
        }
        #expect(throws: RegistryError("strategy \"ExactMatch\" is registered twice")) {
            try BuiltInStrategies.registry.adding([BuiltInStrategies.registry["ExactMatch"]!])
        }
        let spaced = StrategyType(name: "Two Words", kind: .restoration, summary: "") { _ in throw StrategyError("never built") }
        #expect(throws: RegistryError("strategy name \"Two Words\" must be letters and digits only")) { try StrategyRegistry([spaced]) }
    }

    @Test("the builder resolves an inherited parameter generically: the stage's own value, else the key, else the default")
    func inheritance() throws {
        let registry = try BuiltInStrategies.registry.adding([Floor.type])
        let configured = Self.configuration(#"{"Restoration": {"MinimumConfidence": 0.7}}"#)
        let request = RestorationRequest(snapshot: nil, index: TimelineIndex(Timeline(posts: [Post(id: "a", createdAt: Date())])))
        func confidence(_ spec: String, _ configuration: TimelineConfiguration) throws -> Double? {
            try PipelineBuilder(registry: registry, configuration: configuration).build(spec: spec).restore(request).restoration?.confidence
        }
        #expect(try confidence("Floor", configured) == 0.7)
        #expect(try confidence("Floor(Level: 0.9)", configured) == 0.9)
        #expect(try confidence("Floor", .defaults) == 0.5)
        let summary = try PipelineBuilder(registry: registry, configuration: configured).build(spec: "Floor > Fallback").summary
        #expect(summary == "FirstMatch(Floor(Level: 0.7), Fallback(Mode: NearestContent), MinimumConfidence: 0.7) | ViewportAnchor")
    }

    @Test("Weight is applied by the registry to any restoration stage, which keeps its name")
    func weight() throws {
        let stage = try BuiltInStrategies.registry.build(
            StrategyNode(name: "ExactMatch", parameters: ["Weight": Value.Member(value: .integer(3))]),
            kind: .restoration)
        guard let built = stage.as((any RestorationStage).self) else {
            Issue.record("not a stage")
            return
        }
        #expect(built.weight == 3)
        #expect(built.name == "ExactMatch")
        #expect(throws: PipelineError("LRU: Weight: unknown key \"Weight\". Valid keys: MaxEntries")) {
            try BuiltInStrategies.registry.build(StrategyNode(name: "LRU", parameters: ["Weight": Value.Member(value: .integer(3))]), kind: .cache)
        }
    }

    @Test("an enum parameter gets did-you-mean, as strategy names do")
    func enumSuggestion() {
        #expect(
            throws: PipelineError(
                "Fallback: Mode: \"NewestPosts\" is not one of the allowed values: \"NearestContent\", \"TopOfTimeline\", \"LastKnownPosition\", \"NewestPost\", \"OldestPost\"; did you mean \"NewestPost\"?"
            )
        ) {
            try PipelineBuilder().build(spec: "ExactMatch > Fallback(Mode: NewestPosts)")
        }
    }

    @Test("a registry with another strategy composes its own schema: the loader checks its parameters with lines")
    func composedSchemaChecksAnAppStrategy() throws {
        let registry = try BuiltInStrategies.registry.adding([Floor.type])
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
                <key>Restoration</key>
                <dict>
                    <key>Pipeline</key>
                    <array>
                        <dict><key>Strategy</key><string>Floor</string><key>Level</key><real>1.5</real></dict>
                    </array>
                </dict>
            </dict>
            </plist>
            """
        let withBuiltIns = ConfigurationLoader().read(data: Data(plist.utf8), fileName: "app.plist")
        #expect(
            withBuiltIns.diagnostics.first?.description.hasPrefix(
                "app.plist:8:38: error: Restoration.Pipeline[0].Strategy: \"Floor\" is not one of the allowed values") == true)
        let loader = ConfigurationLoader(schema: registry.configurationSchema)
        #expect(
            loader.read(data: Data(plist.utf8), fileName: "app.plist").diagnostics.map(\.description)
                == ["app.plist:8:76: error: Restoration.Pipeline[0].Level: 1.5 is greater than the maximum 1 (allowed: ≥ 0 and ≤ 1)"])
        let good = plist.replacingOccurrences(of: "1.5", with: "0.6")
        let loaded = loader.read(data: Data(good.utf8), fileName: "app.plist")
        #expect(loaded.diagnostics.isEmpty)
        let pipeline = try PipelineBuilder(registry: registry, configuration: loaded.configuration).build()
        #expect(pipeline.summary == "Floor(Level: 0.6) | ViewportAnchor")
        #expect(BuiltInStrategies.registry.configurationSchema.document == ConfigurationSchema.embedded.document)
    }

    @Test("a parameter schema's local references resolve within that schema once composed, recursive ones included")
    func localReferencesAreComposed() throws {
        let schema = try JSONReader().read(
            Data(
                """
                {"type": "object", "$defs": {"level": {"type": "number", "minimum": 0, "maximum": 1}},
                 "properties": {"Level": {"$ref": "#/$defs/level"}, "Next": {"$ref": "#"}, "Levels": {"type": "array", "items": {"$ref": "#/properties/Level"}},
                                "Mode": {"enum": [{"$ref": "#/nowhere"}, "A"]}}}
                """.utf8))
        let type = StrategyType(name: "Referring", kind: .restoration, summary: "Answers the top post.", parameterSchema: schema) { _ in
            .restoration(Floor(level: 0.5))
        }
        let registry = try BuiltInStrategies.registry.adding([type])
        let loader = ConfigurationLoader(schema: try registry.composedConfigurationSchema())
        func errors(_ stage: String) -> [String] {
            loader.read(data: Data(#"{"Restoration": {"Pipeline": [\#(stage)]}}"#.utf8), fileName: "app.json").diagnostics.map(\.description)
        }
        #expect(errors(#"{"Strategy": "Referring", "Level": 0.5, "Levels": [0, 1], "Next": {"Level": 1, "Next": {}}, "Mode": "A"}"#) == [])
        #expect(
            errors(#"{"Strategy": "Referring", "Level": 2}"#)
                == ["app.json:1:66: error: Restoration.Pipeline[0].Level: 2 is greater than the maximum 1 (allowed: ≥ 0 and ≤ 1)"])
        #expect(
            errors(#"{"Strategy": "Referring", "Next": {"Next": {"Level": -1}}}"#)
                == ["app.json:1:84: error: Restoration.Pipeline[0].Next.Next.Level: -1 is less than the minimum 0 (allowed: ≥ 0 and ≤ 1)"])
        #expect(errors(#"{"Strategy": "Referring", "Next": {"Strategy": "Referring"}}"#).count == 1)
        // A value that only looks like a reference is left as it is.
        #expect(
            registry.configurationSchema.document["$defs"]?["parameters.Referring"]?["properties"]?["Mode"]?["enum"]?.arrayValue?.first?["$ref"]?
                .stringValue == "#/nowhere")
    }

    @Test("a property named like a keyword (const, enum, $ref) is a schema whose references are composed (found by fuzz-plugin-schema)")
    func keywordNamedProperties() throws {
        let schema = try JSONReader().read(
            Data(
                """
                {"type": "object", "properties": {"Next": {"$ref": "#"},
                 "Item": {"type": "object", "properties": {"const": {"type": "array", "items": {"$ref": "#/properties/Next"}},
                                                           "enum": {"$ref": "#/properties/Next"}}}}}
                """.utf8))
        let type = StrategyType(name: "Keywords", kind: .restoration, summary: "Answers the top post.", parameterSchema: schema) { _ in
            .restoration(Floor(level: 0.5))
        }
        let registry = try BuiltInStrategies.registry.adding([type])
        let loader = ConfigurationLoader(schema: try registry.composedConfigurationSchema())
        let read = loader.read(
            data: Data(#"{"Restoration": {"Pipeline": [{"Strategy": "Keywords", "Item": {"const": [{}], "enum": {"Next": {}}}}]}}"#.utf8),
            fileName: "app.json")
        #expect(read.diagnostics.map(\.description) == [])
    }

    /// A kind of an app's own: what it decides, declared with its configuration face.
    struct Turn: Sendable { let degrees: Double }
    static let rotation = StrategyKind(
        "rotation", label: "rotation", order: 9, component: Turn.self,
        configuration: StrategyKind.ConfigurationFace(title: "Rotation", description: "How the view turns.", form: .nameOrDictionary))

    @Test("a new kind with a configuration face is composed into $defs/<kind>, and a key declared with its name validates")
    func kindWithAFace() throws {
        let degrees = Parameter<Double>("Degrees", help: "How far it turns.", default: 90, minimum: 0, maximum: 360)
        let type = StrategyType(name: "Clockwise", kind: Self.rotation, summary: "Turns clockwise.", parameters: [degrees.declaration]) { options in
            BuiltStrategy(Turn(degrees: degrees.value(in: options)))
        }
        let registry = try BuiltInStrategies.registry.adding([type])
        // The key, as a section of the app's would declare it.
        let key = ComponentSetting(
            wrappedValue: ComponentSpec(name: "Clockwise"), "Rotation", title: "Rotation", kind: "rotation", help: "How it turns.")
        var base = try #require(ConfigurationSchema.declared.dictionaryValue)
        var sections = try #require(base["properties"]?.value.dictionaryValue)
        sections["Display"] = Value.Member(
            value: .dictionary([
                ("type", .string("object")), ("properties", .dictionary([(key.declaration.name, key.declaration.schema)])),
                ("additionalProperties", .bool(false)),
            ]))
        base["properties"]?.value = Value(.dictionary(sections))
        let composed = ConfigurationSchemaComposer.compose(Value(.dictionary(base)), registry: registry)
        #expect(composed["$defs"]?["rotation"]?["title"]?.stringValue == "Rotation")
        #expect(composed["$defs"]?["rotation"]?["then"]?["enum"]?.arrayValue == [.string("Clockwise")])
        let loader = ConfigurationLoader(schema: try ConfigurationSchema(document: composed))
        func errors(_ json: String) -> [String] {
            loader.read(data: Data(json.utf8), fileName: "app.json").diagnostics.map(\.description)
        }
        #expect(errors(#"{"Display": {"Rotation": "Clockwise"}}"#) == [])
        #expect(errors(#"{"Display": {"Rotation": {"Strategy": "Clockwise", "Degrees": 180}}}"#) == [])
        #expect(errors(#"{"Display": {"Rotation": {"Strategy": "Clockwise", "Degrees": 400}}}"#).count == 1)
        #expect(errors(#"{"Display": {"Rotation": "Widdershins"}}"#).count >= 1)
        // The built-in kinds' definitions are there as before, each under its kind's name.
        for kind in ["restoration", "cache", "network", "merge", "transport", "reach"] { #expect(composed["$defs"]?[kind] != nil, "\(kind)") }
        #expect(composed["properties"]?["Network"]?["properties"]?["Policy"]?["default"]?["Strategy"]?.stringValue == "NoRetry")
    }

    @Test("the generic builders name no strategy: the defaults are specs in DefaultComponents")
    func buildersNameNoStrategy() throws {
        for file in ["PipelineBuilder", "CachePolicyBuilder", "NetworkPolicyBuilder", "StrategyRegistry", "ConfigurationSchemaComposer"] {
            let source = try String(contentsOf: Fixtures.repositoryURL("Sources/TimelineEngineRestoration/\(file).swift"), encoding: .utf8)
            for name in BuiltInStrategies.registry.names {
                #expect(!source.contains("\"\(name)\""), "\(file).swift names \(name)")
            }
        }
    }

    @Test("the registry lists exactly the folders under Strategies/, in their names' order (Strategies/generate.sh)")
    func builtInsFromFolders() throws {
        let folder = Fixtures.repositoryURL("Strategies")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { name in
            var isFolder: ObjCBool = false
            return !name.hasPrefix(".") && FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isFolder)
                && isFolder.boolValue
        }
        #expect(BuiltInStrategies.registry.names == names.sorted { $0.lowercased() < $1.lowercased() })
    }

    /// The built-ins without examples of their own: the positioning stage, a kind with no
    /// scenario type yet, whose suite (ViewportAnchorTests) asserts it.
    static let withoutExamples: Set<String> = ["ViewportAnchor"]

    @Test("every built-in has examples, and each names only parameters its type and its stages accept", arguments: BuiltInStrategies.registry.names)
    func examplesFitTheirType(_ name: String) throws {
        let registry = BuiltInStrategies.registry
        let type = try #require(registry[name])
        #expect(type.examples.isEmpty == Self.withoutExamples.contains(name), "\(name): examples")
        let required = Set(type.parameters.filter(\.isRequired).map(\.name))
        for example in type.examples {
            let given = Set(example.parameterValues.keys.map(\.string))
            #expect(given.isSubset(of: type.parameterNames), "\(name) / \(example.name): \(given.subtracting(type.parameterNames))")
            // An endpoint (a transport's Path or URL) is the suite's to give; the rest is checked whole.
            if required.isSubset(of: given) {
                let node = StrategyNode(name: name, parameters: example.parameterValues)
                #expect(throws: Never.self, "\(name) / \(example.name)") { try registry.parameters(for: node, type: type, inherited: { _ in nil }) }
            }
            #expect(example.stages.isEmpty != type.isComposition, "\(name) / \(example.name): stages")
            for stage in example.stages {
                let stageType = try #require(registry[stage.name], "\(name) / \(example.name): \(stage.name)")
                let stageNode = StrategyNode(name: stage.name, parameters: stage.parameterValues)
                #expect(throws: Never.self, "\(name) / \(example.name) / \(stage.name)") {
                    try registry.parameters(for: stageNode, type: stageType, inherited: { _ in nil })
                }
            }
        }
        #expect(Set(type.examples.map(\.name)).count == type.examples.count, "\(name): two examples share a name")
    }

    @Test("listings group the types by kind, in the kinds' order")
    func listingOrder() {
        let registry = BuiltInStrategies.registry
        let builtIn = ["restoration", "fallback", "positioning", "cache", "network", "merge", "transport", "reach"]
        #expect(registry.kinds.map(\.rawValue).filter(builtIn.contains) == builtIn)
        #expect(registry.kinds == registry.kinds.sorted())
        #expect(registry.typesByKind.map(\.kind) == registry.typesByKind.map(\.kind).sorted())
        #expect(registry.types(of: .network).map(\.name) == ["ExponentialBackoff", "NoRetry"])
    }
}
