import ValueTree

/// Builds parameter schemas without writing JSON by hand.
public enum ParameterSchema {
    /// An object schema with these properties, in order.
    public static func object(_ properties: [(String, Value)]) -> Value {
        .dictionary([("type", .string("object")), ("properties", .dictionary(properties))])
    }

    /// A number parameter.
    public static func number(_ description: String, default value: Double, minimum: Double? = nil, maximum: Double? = nil,
                              exclusiveMinimum: Double? = nil) -> Value {
        var pairs: [(String, Value)] = [("description", .string(description)), ("type", .string("number"))]
        if let minimum { pairs.append(("minimum", number(minimum))) }
        if let exclusiveMinimum { pairs.append(("exclusiveMinimum", number(exclusiveMinimum))) }
        if let maximum { pairs.append(("maximum", number(maximum))) }
        pairs.append(("default", number(value)))
        return .dictionary(pairs)
    }

    /// An integer parameter.
    public static func integer(_ description: String, default value: Int, minimum: Int? = nil, maximum: Int? = nil) -> Value {
        var pairs: [(String, Value)] = [("description", .string(description)), ("type", .string("integer"))]
        if let minimum { pairs.append(("minimum", .integer(minimum))) }
        if let maximum { pairs.append(("maximum", .integer(maximum))) }
        pairs.append(("default", .integer(value)))
        return .dictionary(pairs)
    }

    /// A string parameter with allowed values; `default` nil means "no default".
    public static func choice(_ description: String, _ values: [String], default value: String?) -> Value {
        var pairs: [(String, Value)] = [
            ("description", .string(description)), ("type", .string("string")), ("enum", .array(values.map(Value.string))),
        ]
        if let value { pairs.append(("default", .string(value))) }
        return .dictionary(pairs)
    }

    /// Parameters given as numbers (as scenarios give them), in key order, each as `number(_:)`
    /// writes it.
    public static func parameters(_ numbers: [String: Double]) -> Value.Dictionary {
        var parameters = Value.Dictionary()
        for (key, value) in numbers.sorted(by: { $0.key < $1.key }) { parameters[key] = Value.Member(value: number(value)) }
        return parameters
    }

    /// Integral doubles print as integers (3600, not 3600.0).
    static func number(_ value: Double) -> Value {
        if value == value.rounded(), abs(value) < 1e15 { return .integer(Int(value)) }
        return .real(value)
    }

    /// The `Weight` every restoration stage accepts, used by WeightedVote.
    public static let weight = number("This stage's vote in a WeightedVote composition.", default: 1, minimum: 0)
}
