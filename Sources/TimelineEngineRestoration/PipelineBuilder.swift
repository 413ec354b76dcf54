import TimelineEngineConfiguration
import TimelineEngineJSONSchema
import TimelineEngineRestorationModel
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// Builds pipelines from the configuration's `Restoration` section or from a spec, through the
/// registry. It knows no strategy by name: the default pipeline is `DefaultComponents`', and
/// every component is built by `StrategyRegistry.build`.
///
/// The stages are combined by `Restoration.Composition`, and the default positioning stage
/// places the result unless a positioning stage comes last.
public struct PipelineBuilder: Sendable {
    public let registry: StrategyRegistry
    public let configuration: TimelineConfiguration

    public init(registry: StrategyRegistry = BuiltInStrategies.registry, configuration: TimelineConfiguration = .defaults) {
        self.registry = registry
        self.configuration = configuration
    }

    /// The pipeline the configuration describes.
    public func build() throws(PipelineError) -> Pipeline {
        let nodes = (configuration.restoration.pipeline ?? DefaultComponents.pipeline(for: configuration)).map(StrategyNode.init)
        return try assemble(nodes, composition: configuration.restoration.composition)
    }

    /// The pipeline a spec describes (`A > B` is `PipelineSpec.sequenceComposition`).
    public func build(spec text: String) throws(PipelineError) -> Pipeline {
        let spec: PipelineSpec
        do {
            spec = try PipelineSpec.parse(text)
        } catch {
            throw PipelineError("invalid --strategy spec at \(error.description)")
        }
        var positioning: StrategyNode?
        var restoration = spec
        if case .positioned(let stages, let by) = spec {
            restoration = stages
            positioning = StrategyNode(by)
            if let positioning, let type = registry[positioning.name], type.kind != .positioning {
                throw PipelineError("\(positioning.name) is a \(type.kind.rawValue) strategy; only a positioning strategy can follow '|'")
            }
        }
        var nodes: [StrategyNode]
        switch restoration {
        case .sequence(let stages): nodes = stages.map(StrategyNode.init)
        case .stage, .positioned: nodes = [StrategyNode(restoration)]
        }
        if let positioning { nodes.append(positioning) }
        return try assemble(nodes, composition: PipelineSpec.sequenceComposition)
    }

    /// Where parameters that inherit a configuration key find it: this configuration.
    var inherited: StrategyRegistry.InheritedValues {
        let configuration = configuration
        return { configuration.value(of: $0) }
    }

    func assemble(_ nodes: [StrategyNode], composition: String) throws(PipelineError) -> Pipeline {
        var stages = nodes
        var positioningNode = StrategyNode(name: DefaultComponents.positioning)
        if let last = stages.last, registry[last.name]?.kind == .positioning {
            positioningNode = last
            stages.removeLast()
        }
        guard let positioning = try registry.build(positioningNode, kind: .positioning, inherited: inherited).as((any PositioningStage).self) else {
            throw PipelineError("\(positioningNode.name) is not a positioning strategy")
        }
        guard !stages.isEmpty else { throw PipelineError("the pipeline has no restoration stage") }
        let rootNode =
            stages.count == 1 && registry[stages[0].name]?.isComposition == true
            ? stages[0] : StrategyNode(name: composition, children: stages)
        guard let root = try registry.build(rootNode, kind: .restoration, inherited: inherited).as((any RestorationStage).self) else {
            throw PipelineError("\(rootNode.name) did not build a restoration stage")
        }
        return Pipeline(root: root, positioning: positioning, summary: summary(of: rootNode) + " | " + describe(positioningNode))
    }

    /// The root in spec notation, which `build(spec:)` reads back into the same pipeline under
    /// the same configuration: the sequence composition with its default parameters is written
    /// `A > B`, any other root in full.
    func summary(of root: StrategyNode) -> String {
        guard root.name == PipelineSpec.sequenceComposition, root.parameters.isEmpty, let type = registry[root.name],
            registry.inheritedParameters(of: type, inherited: inherited).allSatisfy({ type.isDefault($0.value.value, for: $0.key.string) })
        else {
            return describe(root)
        }
        return root.children.map(describe).joined(separator: " > ")
    }

    /// A stage in spec notation, with the parameters it was given and those it takes from
    /// configuration keys, so that an edit of such a key shows.
    func describe(_ node: StrategyNode) -> String {
        var parameters = node.parameters
        if let type = registry[node.name] {
            for (key, member) in registry.inheritedParameters(of: type, inherited: inherited) where parameters[key] == nil {
                parameters[key] = member
            }
        }
        let arguments = node.children.map(describe)
        let inside = (arguments + parameters.map { "\($0.key): \(literal($0.value.value))" }).joined(separator: ", ")
        return inside.isEmpty ? node.name : "\(node.name)(\(inside))"
    }

    private func literal(_ value: Value) -> String {
        if let text = value.stringValue { return text }
        return value.description
    }
}
