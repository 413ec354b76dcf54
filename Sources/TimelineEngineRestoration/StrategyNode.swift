import TimelineEngineConfiguration
import TimelineEngineValueTree

/// A component before it is built: a registered name, its parameters, and for a composition
/// the components it combines. Read from the configuration (`Stages` holds the arguments) or
/// from a spec.
public struct StrategyNode: Sendable, Equatable {
    public var name: String
    public var parameters: Value.Dictionary
    public var children: [StrategyNode]

    public init(name: String, parameters: Value.Dictionary = [:], children: [StrategyNode] = []) {
        self.name = name
        self.parameters = parameters
        self.children = children
    }

    /// A configuration entry: its `Stages` are the arguments, every other key a parameter.
    public init(_ component: ComponentSpec) {
        var parameters = component.parameters
        let children = parameters.removeValue(forKey: "Stages")?.value.arrayValue ?? []
        self.init(
            name: component.name, parameters: parameters,
            children: children.compactMap { child in
                guard var members = child.dictionaryValue, let name = members.removeValue(forKey: "Strategy")?.value.stringValue else { return nil }
                return StrategyNode(ComponentSpec(name: name, parameters: members))
            })
    }

    /// A spec's stage or sequence (a sequence is `PipelineSpec.sequenceComposition`).
    public init(_ spec: PipelineSpec) {
        switch spec {
        case .sequence(let stages):
            self.init(name: PipelineSpec.sequenceComposition, children: stages.map(StrategyNode.init))
        case .positioned(let stages, _):
            // The parser puts `|` at the top only, where the pipeline builder takes it apart.
            self.init(stages)
        case .stage(let name, let parameters, let arguments):
            var dictionary = Value.Dictionary()
            for (key, value) in parameters { dictionary[key] = Value.Member(value: value) }
            self.init(name: name, parameters: dictionary, children: arguments.map(StrategyNode.init))
        }
    }
}
