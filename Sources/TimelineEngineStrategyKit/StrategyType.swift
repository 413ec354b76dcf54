import TimelineEngineValueTree

/// A strategy type as the registry knows it: name, kind, summary, parameters, examples and
/// factory. Each built-in declares one, in its own target under `Strategies/`; a plugin
/// describes one through the C ABI.
public struct StrategyType: Sendable {
    public let name: String
    public let kind: StrategyKind
    /// One line saying what it does: the one description, from which the schema's and
    /// `Strategies/README.md`'s are generated.
    public let summary: String
    /// The declared parameters, in order, with the kind's common ones (empty for a type
    /// described by a raw schema).
    public let parameters: [ParameterDeclaration]
    /// The JSON Schema of its parameters: an object schema whose `properties` give each
    /// parameter's type, range, `default` and `description`, the kind's common parameters
    /// included.
    public let parameterSchema: Value
    /// For compositions, the kind of the components listed under `Stages`.
    public let composes: StrategyKind?
    /// Named examples, of its kind's scenario type, run by that kind's conformance suite. They
    /// are built when asked for (each time), so that a registry, which every command builds,
    /// builds none of them.
    public var examples: [any StrategyExample] { makeExamples() }
    private let makeExamples: @Sendable () -> [any StrategyExample]
    public let make: @Sendable (StrategyOptions) throws -> BuiltStrategy

    /// A type whose parameters are declared with `Parameter`.
    public init(
        name: String, kind: StrategyKind, summary: String, parameters: [ParameterDeclaration] = [], composes: StrategyKind? = nil,
        examples: @autoclosure @escaping @Sendable () -> [any StrategyExample] = [],
        make: @escaping @Sendable (StrategyOptions) throws -> BuiltStrategy
    ) {
        let all = parameters + kind.commonParameters
        var pairs: [(String, Value)] = [
            ("type", .string("object")),
            ("properties", .dictionary(all.map { ($0.name, $0.schema) })),
        ]
        let required = all.filter(\.isRequired).map { Value.string($0.name) }
        if !required.isEmpty { pairs.append(("required", .array(required))) }
        self.init(
            name: name, kind: kind, summary: summary, declarations: all, parameterSchema: .dictionary(pairs), composes: composes,
            examples: examples, make: make)
    }

    /// A type described by a raw parameter schema (an object schema), as a plugin describes
    /// itself; the kind's common parameters are added.
    public init(
        name: String, kind: StrategyKind, summary: String, parameterSchema: Value, composes: StrategyKind? = nil,
        examples: @autoclosure @escaping @Sendable () -> [any StrategyExample] = [],
        make: @escaping @Sendable (StrategyOptions) throws -> BuiltStrategy
    ) {
        var schema = parameterSchema
        if !kind.commonParameters.isEmpty, var members = schema.dictionaryValue {
            var properties = members["properties"]?.value.dictionaryValue ?? [:]
            for common in kind.commonParameters {
                properties[Value.Key(common.name)] = Value.Member(value: common.schema)
            }
            members["properties"] = Value.Member(value: Value(.dictionary(properties)))
            schema = Value(.dictionary(members))
        }
        self.init(
            name: name, kind: kind, summary: summary, declarations: [], parameterSchema: schema, composes: composes,
            examples: examples, make: make)
    }

    private init(
        name: String, kind: StrategyKind, summary: String, declarations: [ParameterDeclaration], parameterSchema: Value,
        composes: StrategyKind?, examples: @escaping @Sendable () -> [any StrategyExample],
        make: @escaping @Sendable (StrategyOptions) throws -> BuiltStrategy
    ) {
        self.name = name
        self.kind = kind
        self.summary = summary
        self.parameters = declarations
        self.parameterSchema = parameterSchema
        self.composes = composes
        makeExamples = examples
        self.make = make
    }

    /// The examples of scenario type `T`, in order.
    public func examples<T: StrategyExample>(of type: T.Type) -> [T] {
        examples.compactMap { $0 as? T }
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

    /// The parameters that inherit a configuration key, and the keys.
    public var inheritedKeys: [(parameter: String, key: InheritedKey)] {
        parameters.compactMap { declaration in declaration.inherits.map { (declaration.name, $0) } }
    }
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
