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
        var positioning: Node?
        var restoration = spec
        if case .positioned(let stages, let by) = spec {
            restoration = stages
            positioning = node(from: by)
            if let positioning, let type = registry[positioning.name], type.kind != .positioning {
                throw PipelineError("\(positioning.name) is a \(type.kind.rawValue) strategy; only a positioning strategy can follow '|'")
            }
        }
        var nodes: [Node]
        switch restoration {
        case .sequence(let stages): nodes = stages.map(node(from:))
        case .stage, .positioned: nodes = [node(from: restoration)]
        }
        if let positioning { nodes.append(positioning) }
        return try assemble(nodes, composition: "FirstMatch")
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
        case .positioned(let stages, _):
            // The parser puts `|` at the top only, where `build(spec:)` takes it apart.
            return node(from: stages)
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
        let rootNode = stages.count == 1 && registry[stages[0].name]?.isComposition == true
            ? stages[0] : Node(name: composition, parameters: [:], children: stages)
        let root = try restorationStage(rootNode)
        return Pipeline(root: root, positioning: positioning, summary: summary(of: rootNode) + " | " + positioningName)
    }

    /// The root in spec notation, which `build(spec:)` reads back into the same pipeline under
    /// the same configuration: a FirstMatch whose parameters are its defaults is written
    /// `A > B`, any other root in full.
    func summary(of root: Node) -> String {
        guard root.name == "FirstMatch", root.parameters.isEmpty, let type = registry[root.name],
              inherited(for: root).allSatisfy({ type.defaults[$0.key]?.value == $0.value.value }) else {
            return describe(root)
        }
        return root.children.map(describe).joined(separator: " > ")
    }

    /// A stage in spec notation, with the parameters it was given and those it takes from
    /// configuration keys, so that an edit of such a key shows.
    func describe(_ node: Node) -> String {
        var parameters = node.parameters
        for (key, member) in inherited(for: node) where parameters[key] == nil { parameters[key] = member }
        let arguments = node.children.map(describe)
        let inside = (arguments + parameters.map { "\($0.key): \(literal($0.value.value))" }).joined(separator: ", ")
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
        for (key, member) in inherited(for: node) { parameters[key] = member }
        for (key, member) in node.parameters { parameters[key] = member }
        return parameters
    }

    /// The parameters a stage takes from configuration keys when the stage does not set them:
    /// Fallback's Mode from `PositionPersistence.FallbackStrategy`, FirstMatch's
    /// MinimumConfidence from `Restoration.MinimumConfidence`.
    func inherited(for node: Node) -> Value.Dictionary {
        switch node.name {
        case "Fallback": return ["Mode": Value.Member(value: .string(configuration.positionPersistence.fallbackStrategy.rawValue))]
        case "FirstMatch": return ["MinimumConfidence": Value.Member(value: .real(configuration.restoration.minimumConfidence))]
        default: return [:]
        }
    }

    func restorationStage(_ node: Node, depth: Int = 1) throws(PipelineError) -> any RestorationStage {
        guard depth <= PipelineSpec.maximumDepth else {
            throw PipelineError("compositions nest deeper than \(PipelineSpec.maximumDepth) levels")
        }
        let type = try type(named: node.name)
        guard type.kind == .restoration || type.kind == .fallback else {
            throw PipelineError("\(node.name) is a \(type.kind.rawValue) strategy; it can only come last in a pipeline")
        }
        let parameters = try options(for: node, type: type)
        var children: [any RestorationStage] = []
        for child in node.children { children.append(try restorationStage(child, depth: depth + 1)) }
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
