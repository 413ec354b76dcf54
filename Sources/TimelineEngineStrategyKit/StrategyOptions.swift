import TimelineEngineValueTree

/// What a strategy type's factory receives: its validated parameters (defaults and inherited
/// configuration values filled in) and, for compositions, the components built from its
/// arguments. Each kind's module reads its own components out (`children`, `cachePolicies`).
public struct StrategyOptions: Sendable {
    public var parameters: Value.Dictionary
    /// For compositions: the components built from its arguments, in order.
    public var components: [any Sendable]

    public init(parameters: Value.Dictionary = [:], components: [any Sendable] = []) {
        self.parameters = parameters
        self.components = components
    }

    /// The value of `parameter`, or its default.
    public func callAsFunction<T: ParameterValue>(_ parameter: Parameter<T>) -> T {
        parameter.value(in: self)
    }

    /// The components that are `T`s, in order.
    public func components<T>(as type: T.Type) -> [T] {
        components.compactMap { $0 as? T }
    }

    public func double(_ key: String) -> Double? { parameters[key]?.value.numberValue }
    public func int(_ key: String) -> Int? { parameters[key]?.value.numberValue.flatMap { Int(exactly: $0.rounded()) } }
    public func string(_ key: String) -> String? { parameters[key]?.value.stringValue }
}
