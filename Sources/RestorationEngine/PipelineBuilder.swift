import Configuration
import JSONSchema
import StrategyKit
import ValueTree

/// Builds pipelines from the configuration's `Restoration` section or from a spec, through the
/// registry.
///
/// When the configuration has no `Restoration.Pipeline`, the seed's keys decide:
/// `ExactMatch > ContentSimilarity(Threshold: 0.8) > NeighborAnchor > TemporalProximity >
/// ContentSimilarity > Fallback(Mode: PositionPersistence.FallbackStrategy)`; only `ExactMatch > Fallback` when `SmartRestoration`
/// is false; `Fallback(Mode: TopOfTimeline)` when `Enabled` is false. The stages are combined by
/// `Restoration.Composition` (FirstMatch by default, with `Restoration.MinimumConfidence`), and
/// ViewportAnchor positions the result unless a positioning stage is named.
public struct PipelineBuilder: Sendable {
    public let registry: StrategyRegistry
    public let configuration: TimelineConfiguration

    public init(registry: StrategyRegistry = BuiltInStrategies.registry, configuration: TimelineConfiguration = .defaults) {
        self.registry = registry
        self.configuration = configuration
    }

    /// A stage before it is built: a name, its parameters, and its stages if it is a composition.
    struct Node {
        var name: String
        var parameters: Value.Dictionary
        var children: [Node]
    }

    /// The pipeline the configuration describes.
    public func build() throws(PipelineError) -> Pipeline {
        let nodes = (configuration.restoration.pipeline ?? defaultStages()).map(node(from:))
        let composition = configuration.restoration.composition.rawValue
        return try assemble(nodes, composition: composition)
    }

    /// The pipeline a spec describes (`A > B` is FirstMatch).
    public func build(spec text: String) throws(PipelineError) -> Pipeline {
        let spec: PipelineSpec
        do {
            spec = try PipelineSpec.parse(text)
        } catch {
            throw PipelineError("invalid --strategy spec at \(error.description)")
        }
        switch spec {
        case .sequence(let stages): return try assemble(stages.map(node(from:)), composition: "FirstMatch")
        case .stage: return try assemble([node(from: spec)], composition: "FirstMatch")
        }
    }

    /// The similarity above which the default pipeline takes a text for a re-draft of the saved one.
    public static let redraftThreshold = 0.8

    func defaultStages() -> [ComponentSpec] {
        let persistence = configuration.positionPersistence
        if !persistence.enabled {
            return [ComponentSpec(name: "Fallback", parameters: ["Mode": Value.Member(value: .string("TopOfTimeline"))])]
        }
        if !persistence.smartRestoration {
            return [ComponentSpec(name: "ExactMatch"), ComponentSpec(name: "Fallback")]
        }
        // A near-identical text is a re-draft, found before the neighbours because a re-draft's
        // old neighbours are still there. On simulated sessions this order puts the reader within
        // one post 95 % of the time, against 88 % with the seed's order (docs/SIMULATION.md).
        let redraft = ComponentSpec(name: "ContentSimilarity", parameters: ["Threshold": Value.Member(value: .real(Self.redraftThreshold))])
        return [ComponentSpec(name: "ExactMatch"), redraft] + ["NeighborAnchor", "TemporalProximity", "ContentSimilarity", "Fallback"].map { ComponentSpec(name: $0) }
    }

    func node(from component: ComponentSpec) -> Node {
        var parameters = component.parameters
        let children = parameters.removeValue(forKey: "Stages")?.value.arrayValue ?? []
        return Node(name: component.name, parameters: parameters, children: children.compactMap { child in
            guard var members = child.dictionaryValue, let name = members.removeValue(forKey: "Strategy")?.value.stringValue else { return nil }
            return node(from: ComponentSpec(name: name, parameters: members))
        })
    }

    func node(from spec: PipelineSpec) -> Node {
        switch spec {
        case .sequence(let stages):
            return Node(name: "FirstMatch", parameters: [:], children: stages.map(node(from:)))
        case .stage(let name, let parameters, let arguments):
            var dictionary = Value.Dictionary()
            for (key, value) in parameters { dictionary[key] = Value.Member(value: value) }
            return Node(name: name, parameters: dictionary, children: arguments.map(node(from:)))
        }
    }

    func assemble(_ nodes: [Node], composition: String) throws(PipelineError) -> Pipeline {
        var stages = nodes
        var positioning: any PositioningStage = try positioningStage(Node(name: "ViewportAnchor", parameters: [:], children: []))
        var positioningName = "ViewportAnchor"
        if let last = stages.last, registry[last.name]?.kind == .positioning {
            positioning = try positioningStage(last)
            positioningName = describe(last)
            stages.removeLast()
        }
        guard !stages.isEmpty else { throw PipelineError("the pipeline has no restoration stage") }
        let root: any RestorationStage
        if stages.count == 1, registry[stages[0].name]?.isComposition == true {
            root = try restorationStage(stages[0])
        } else {
            root = try restorationStage(Node(name: composition, parameters: [:], children: stages))
        }
        let summary = (stages.count == 1 ? describe(stages[0]) : stages.map(describe).joined(separator: " > "))
            + (composition == "FirstMatch" || stages.count == 1 ? "" : " [\(composition)]") + " | " + positioningName
        return Pipeline(root: root, positioning: positioning, summary: summary)
    }

    func describe(_ node: Node) -> String {
        let parameters = node.parameters.map { "\($0.key): \(literal($0.value.value))" }
        let arguments = node.children.map(describe)
        let inside = (arguments + parameters).joined(separator: ", ")
        return inside.isEmpty ? node.name : "\(node.name)(\(inside))"
    }

    private func literal(_ value: Value) -> String {
        if let text = value.stringValue { return text }
        return value.description
    }

    func type(named name: String) throws(PipelineError) -> StrategyType {
        try type(named: name, among: registry.stageTypes, label: "strategy")
    }

    /// The type registered under `name` among `types`, or an error naming the registered ones
    /// (with "did you mean"); `label` names what was asked for ("strategy", "cache policy", …).
    func type(named name: String, among types: [StrategyType], label: String) throws(PipelineError) -> StrategyType {
        if let type = types.first(where: { $0.name == name }) { return type }
        let names = types.map(\.name)
        var message = "unknown \(label) \(Value.quote(name))"
        if let suggestion = Suggestions.closest(to: name, among: names) { message += "; did you mean \(Value.quote(suggestion))?" }
        throw PipelineError(message + " Registered: \(names.joined(separator: ", "))")
    }

    /// Runs a type's factory; what it throws becomes a `PipelineError` naming the strategy.
    func make(_ type: StrategyType, _ options: StrategyOptions) throws(PipelineError) -> BuiltStrategy {
        do {
            return try type.make(options)
        } catch let error as PipelineError {
            throw error
        } catch {
            throw PipelineError("\(type.name): \(error)")
        }
    }

    /// Validates a node's parameters against its type's schema and fills in defaults.
    func options(for node: Node, type: StrategyType) throws(PipelineError) -> Value.Dictionary {
        var schema = type.parameterSchema
        if var members = schema.dictionaryValue {
            members["additionalProperties"] = Value.Member(value: .bool(false))
            schema = Value(.dictionary(members))
        }
        if let compiled = try? JSONSchema(schema) {
            let result = compiled.validate(Value(.dictionary(node.parameters)))
            if let first = result.errors.first {
                throw PipelineError("\(node.name): \(first.instancePath.isRoot ? "" : "\(first.instancePath): ")\(first.message)")
            }
        }
        if !type.isComposition, !node.children.isEmpty {
            throw PipelineError("\(node.name) is not a composition and takes no stages")
        }
        var parameters = type.defaults
        if node.name == "Fallback", node.parameters["Mode"] == nil {
            parameters["Mode"] = Value.Member(value: .string(configuration.positionPersistence.fallbackStrategy.rawValue))
        }
        if node.name == "FirstMatch", node.parameters["MinimumConfidence"] == nil {
            parameters["MinimumConfidence"] = Value.Member(value: .real(configuration.restoration.minimumConfidence))
        }
        for (key, member) in node.parameters { parameters[key] = member }
        return parameters
    }

    func restorationStage(_ node: Node) throws(PipelineError) -> any RestorationStage {
        let type = try type(named: node.name)
        guard type.kind == .restoration || type.kind == .fallback else {
            throw PipelineError("\(node.name) is a \(type.kind.rawValue) strategy; it can only come last in a pipeline")
        }
        let parameters = try options(for: node, type: type)
        var children: [any RestorationStage] = []
        for child in node.children { children.append(try restorationStage(child)) }
        if type.isComposition, children.isEmpty { throw PipelineError("\(node.name) needs at least one stage") }
        guard case .restoration(let stage) = try make(type, StrategyOptions(parameters: parameters, children: children)) else {
            throw PipelineError("\(node.name) did not build a restoration stage")
        }
        return stage
    }

    func positioningStage(_ node: Node) throws(PipelineError) -> any PositioningStage {
        let type = try type(named: node.name)
        let parameters = try options(for: node, type: type)
        guard case .positioning(let stage) = try make(type, StrategyOptions(parameters: parameters)) else {
            throw PipelineError("\(node.name) is not a positioning strategy")
        }
        return stage
    }
}
