import TimelineEngineValueTree

/// A named example of a strategy at work: the one type every kind's scenarios conform to. A
/// type's examples are checked by the registry's shared suite (each names parameters the type
/// accepts) and run by its kind's conformance suite, which reads the examples of its own
/// scenario type (`examples(of: MergeScenario.self)`).
public protocol StrategyExample: Sendable {
    /// The example's name, unique within its type.
    var name: String { get }
    /// The parameters the example builds the strategy with.
    var parameterValues: Value.Dictionary { get }
    /// For a composition's example: the components it combines, in order.
    var stages: [ExampleStage] { get }
}

/// A component an example of a composition combines: a registered type's name and parameters.
public struct ExampleStage: Sendable {
    public let name: String
    public let parameterValues: Value.Dictionary

    public init(_ name: String, _ parameterValues: Value.Dictionary = [:]) {
        self.name = name
        self.parameterValues = parameterValues
    }
}

extension StrategyExample {
    public var stages: [ExampleStage] { [] }

    /// Parameters given as numbers, as a factory receives them: in key order, each written as a
    /// declared parameter writes it.
    public static func parameterValues(numbers: [String: Double]) -> Value.Dictionary {
        var parameters = Value.Dictionary()
        for (key, value) in numbers.sorted(by: { $0.key < $1.key }) { parameters[key] = Value.Member(value: value.schemaValue) }
        return parameters
    }
}
