import ValueTree

/// What a strategy type's factory receives: its validated parameters (defaults filled in) and,
/// for compositions, the stages built from its arguments.
public struct StrategyOptions: Sendable {
    public var parameters: Value.Dictionary
    public var children: [any RestorationStage]
    /// For cache compositions: the policies built from its arguments.
    public var cachePolicies: [any CachePolicy]

    public init(parameters: Value.Dictionary = [:], children: [any RestorationStage] = [], cachePolicies: [any CachePolicy] = []) {
        self.parameters = parameters
        self.children = children
        self.cachePolicies = cachePolicies
    }

    public func double(_ key: String) -> Double? { parameters[key]?.value.numberValue }
    public func int(_ key: String) -> Int? { parameters[key]?.value.numberValue.flatMap { Int(exactly: $0.rounded()) } }
    public func string(_ key: String) -> String? { parameters[key]?.value.stringValue }
}

/// What a factory builds.
public enum BuiltStrategy: Sendable {
    case restoration(any RestorationStage)
    case positioning(any PositioningStage)
    case cache(any CachePolicy)
    case network(any NetworkPolicy)
}

/// A strategy type as the registry knows it: name, kind, summary, parameter schema, example
/// scenarios and factory. Each built-in declares one, in its own target under `Strategies/`.
public struct StrategyType: Sendable {
    public let name: String
    public let kind: StrategyKind
    /// One line saying what it does.
    public let summary: String
    /// The JSON Schema of its parameters: an object schema whose `properties` give each
    /// parameter's type, range, `default` and `description`.
    public let parameterSchema: Value
    /// True for compositions, whose arguments are stages.
    public let isComposition: Bool
    /// Named examples, run by the shared conformance suite.
    public let scenarios: [StrategyScenario]
    /// Named examples of a cache policy, run by the shared conformance suite.
    public let cacheScenarios: [CacheScenario]
    /// Named examples of a network policy, run by the shared conformance suite.
    public let networkScenarios: [NetworkScenario]
    public let make: @Sendable (StrategyOptions) throws -> BuiltStrategy

    public init(name: String, kind: StrategyKind, summary: String, parameterSchema: Value, isComposition: Bool = false,
                scenarios: [StrategyScenario] = [], cacheScenarios: [CacheScenario] = [], networkScenarios: [NetworkScenario] = [],
                make: @escaping @Sendable (StrategyOptions) throws -> BuiltStrategy) {
        self.name = name
        self.kind = kind
        self.summary = summary
        self.parameterSchema = parameterSchema
        self.isComposition = isComposition
        self.scenarios = scenarios
        self.cacheScenarios = cacheScenarios
        self.networkScenarios = networkScenarios
        self.make = make
    }

    /// The parameters' names, in declaration order.
    public var parameterNames: [String] {
        parameterSchema["properties"]?.dictionaryValue.map { $0.keys.map(\.string) } ?? []
    }

    /// The parameters' defaults.
    public var defaults: Value.Dictionary {
        var result = Value.Dictionary()
        for (name, member) in parameterSchema["properties"]?.dictionaryValue ?? [:] {
            if let value = member.value["default"] { result[name] = Value.Member(value: value) }
        }
        return result
    }
}

/// A strategy that cannot be built from its options.
public struct StrategyError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
