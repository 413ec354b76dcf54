import SyncModel
import ValueTree

/// What a strategy type's factory receives: its validated parameters (defaults and inherited
/// configuration values filled in) and, for compositions, the components built from its
/// arguments.
public struct StrategyOptions: Sendable {
    public var parameters: Value.Dictionary
    /// For restoration compositions: the stages built from its arguments.
    public var children: [any RestorationStage]
    /// For cache compositions: the policies built from its arguments.
    public var cachePolicies: [any CachePolicy]

    public init(parameters: Value.Dictionary = [:], children: [any RestorationStage] = [], cachePolicies: [any CachePolicy] = []) {
        self.parameters = parameters
        self.children = children
        self.cachePolicies = cachePolicies
    }

    /// The value of `parameter`, or its default.
    public func callAsFunction<T>(_ parameter: Parameter<T>) -> T {
        parameter.value(in: self)
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
    case merge(any MergePolicy)
    case transport(any SyncTransport)
    case reach(any ReachStrategy)

    /// The kind of component this is (a fallback stage reads as `restoration`).
    public var kindName: String {
        switch self {
        case .restoration: "restoration stage"
        case .positioning: "positioning stage"
        case .cache: "cache policy"
        case .network: "network policy"
        case .merge: "merge policy"
        case .transport: "transport"
        case .reach: "reach strategy"
        }
    }
}

/// A strategy type as the registry knows it: name, kind, summary, parameters, example
/// scenarios and factory. Each built-in declares one, in its own target under `Strategies/`;
/// a plugin describes one through the C ABI.
public struct StrategyType: Sendable {
    public let name: String
    public let kind: StrategyKind
    /// One line saying what it does: the one description, from which the schema's and
    /// `Strategies/README.md`'s are generated.
    public let summary: String
    /// The declared parameters, in order (empty for a type described by a raw schema).
    public let parameters: [ParameterDeclaration]
    /// The JSON Schema of its parameters: an object schema whose `properties` give each
    /// parameter's type, range, `default` and `description`. Restoration and fallback stages
    /// also accept `Weight`, added here for every one of them.
    public let parameterSchema: Value
    /// For compositions, the kind of the components listed under `Stages`.
    public let composes: StrategyKind?
    /// Named examples, run by the shared conformance suite.
    public let scenarios: [StrategyScenario]
    /// Named examples of a cache policy, run by the shared conformance suite.
    public let cacheScenarios: [CacheScenario]
    /// Named examples of a network policy, run by the shared conformance suite.
    public let networkScenarios: [NetworkScenario]
    /// Named examples of a merge policy, run by the shared conformance suite.
    public let mergeScenarios: [MergeScenario]
    /// Named examples of a reach strategy, run by the shared conformance suite.
    public let reachScenarios: [ReachScenario]
    public let make: @Sendable (StrategyOptions) throws -> BuiltStrategy

    /// A type whose parameters are declared with `Parameter`.
    public init(
        name: String, kind: StrategyKind, summary: String, parameters: [ParameterDeclaration] = [], composes: StrategyKind? = nil,
        scenarios: [StrategyScenario] = [], cacheScenarios: [CacheScenario] = [], networkScenarios: [NetworkScenario] = [],
        mergeScenarios: [MergeScenario] = [], reachScenarios: [ReachScenario] = [],
        make: @escaping @Sendable (StrategyOptions) throws -> BuiltStrategy
    ) {
        var all = parameters
        if kind.isStage, kind != .positioning { all.append(StrategyWeight.parameter.declaration) }
        var pairs: [(String, Value)] = [
            ("type", .string("object")),
            ("properties", .dictionary(all.map { ($0.name, $0.schema) })),
        ]
        let required = all.filter(\.isRequired).map { Value.string($0.name) }
        if !required.isEmpty { pairs.append(("required", .array(required))) }
        let schema = Value.dictionary(pairs)
        self.init(
            name: name, kind: kind, summary: summary, declarations: all, parameterSchema: schema, composes: composes,
            scenarios: scenarios, cacheScenarios: cacheScenarios, networkScenarios: networkScenarios,
            mergeScenarios: mergeScenarios, reachScenarios: reachScenarios, make: make)
    }

    /// A type described by a raw parameter schema (an object schema), as a plugin describes
    /// itself; `Weight` is added for restoration and fallback stages.
    public init(
        name: String, kind: StrategyKind, summary: String, parameterSchema: Value, composes: StrategyKind? = nil,
        scenarios: [StrategyScenario] = [], make: @escaping @Sendable (StrategyOptions) throws -> BuiltStrategy
    ) {
        var schema = parameterSchema
        if kind.isStage, kind != .positioning, var members = schema.dictionaryValue {
            var properties = members["properties"]?.value.dictionaryValue ?? [:]
            properties[Value.Key(StrategyWeight.parameter.name)] = Value.Member(value: StrategyWeight.parameter.declaration.schema)
            members["properties"] = Value.Member(value: Value(.dictionary(properties)))
            schema = Value(.dictionary(members))
        }
        self.init(
            name: name, kind: kind, summary: summary, declarations: [], parameterSchema: schema, composes: composes,
            scenarios: scenarios, cacheScenarios: [], networkScenarios: [], mergeScenarios: [], reachScenarios: [], make: make)
    }

    private init(
        name: String, kind: StrategyKind, summary: String, declarations: [ParameterDeclaration], parameterSchema: Value,
        composes: StrategyKind?, scenarios: [StrategyScenario], cacheScenarios: [CacheScenario],
        networkScenarios: [NetworkScenario], mergeScenarios: [MergeScenario], reachScenarios: [ReachScenario],
        make: @escaping @Sendable (StrategyOptions) throws -> BuiltStrategy
    ) {
        self.name = name
        self.kind = kind
        self.summary = summary
        self.parameters = declarations
        self.parameterSchema = parameterSchema
        self.composes = composes
        self.scenarios = scenarios
        self.cacheScenarios = cacheScenarios
        self.networkScenarios = networkScenarios
        self.mergeScenarios = mergeScenarios
        self.reachScenarios = reachScenarios
        self.make = make
    }

    /// True for compositions, whose arguments are components.
    public var isComposition: Bool { composes != nil }

    /// The parameters' names, in declaration order.
    public var parameterNames: [String] {
        parameterSchema["properties"]?.dictionaryValue.map { $0.keys.map(\.string) } ?? []
    }

    /// The parameters' defaults (an inherited parameter's default belongs to its key).
    public var defaults: Value.Dictionary {
        var result = Value.Dictionary()
        for (name, member) in parameterSchema["properties"]?.dictionaryValue ?? [:] {
            if let value = member.value["default"] { result[name] = Value.Member(value: value) }
        }
        return result
    }

    /// True when `value` is the declared default of `parameter` (numbers compare by value).
    public func isDefault(_ value: Value, for parameter: String) -> Bool {
        let declared = parameters.first { $0.name == parameter }?.defaultValue ?? defaults[parameter]?.value
        guard let declared else { return false }
        if let number = value.numberValue, let other = declared.numberValue { return number == other }
        return declared == value
    }

    /// The parameters that inherit a configuration key, and the key paths.
    public var inheritedKeys: [(parameter: String, keyPath: String)] {
        parameters.compactMap { declaration in declaration.inherits.map { (declaration.name, $0) } }
    }
}

/// The `Weight` every restoration and fallback stage accepts; the registry applies it, so no
/// strategy handles it.
public enum StrategyWeight {
    /// `Weight`: a number ≥ 0, 1 by default.
    public static let parameter = Parameter<Double>(
        "Weight", help: "This stage's vote in a WeightedVote composition.", default: 1,
        minimum: 0, maximum: 1000)
}

/// A strategy whose registered name comes from its type: `name` is `Self.type.name`.
public protocol DeclaredStrategy {
    /// The strategy's one declaration, which the registry holds.
    static var type: StrategyType { get }
}

extension DeclaredStrategy {
    /// The registered name.
    public var name: String { Self.type.name }
}

/// A strategy that cannot be built from its options.
public struct StrategyError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
