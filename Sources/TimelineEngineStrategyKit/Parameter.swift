import TimelineEngineValueTree

/// A strategy parameter, declared once: its name, help, default and range produce the JSON
/// Schema the configuration loader validates against, and the same declaration reads the
/// validated value back in the factory. Modelled on swift-argument-parser's `@Option`.
///
/// ```swift
/// static let threshold = Parameter<Double>("Threshold", help: "Least cosine similarity a candidate needs.",
///                                          default: 0.3, range: 0...1)
/// // in the factory:
/// ContentSimilarityStrategy(threshold: threshold.value(in: options))
/// ```
///
/// A parameter that `inherits` a configuration key takes that key's value when a stage does
/// not set it, and the key's type, allowed values and default come from this declaration.
///
/// `T` is constrained to `ParameterValue` only where it is used, not on the type: metadata for a
/// `Parameter<Double>` is then built without looking `Double: ParameterValue` up in every
/// conformance record of the binary, which every command's start would pay once per type.
public struct Parameter<T: Sendable>: Sendable {
    public let name: String
    public let help: String
    public let defaultValue: T
    /// The configuration key (`Restoration.MinimumConfidence`) whose value applies when a stage
    /// does not set the parameter.
    public let inherits: InheritedKey?
    /// True when a stage must give it.
    public private(set) var isRequired = false
    let constraints: [(String, Value)]
}

extension Parameter where T: ParameterValue {
    /// A parameter with an optional inclusive range.
    public init(_ name: String, help: String, default value: T, range: ClosedRange<T>? = nil, inherits: InheritedKey? = nil)
    where T: Comparable {
        var constraints: [(String, Value)] = []
        if let range {
            constraints = [("minimum", range.lowerBound.schemaValue), ("maximum", range.upperBound.schemaValue)]
        }
        self.init(name, help: help, default: value, constraints: constraints, inherits: inherits)
    }

    /// A parameter with a lower bound, inclusive (`minimum`) or exclusive (`above`), and an
    /// upper one (`maximum`, inclusive): every number a configuration gives must be one the
    /// code can hold.
    public init(_ name: String, help: String, default value: T, minimum: T? = nil, above: T? = nil, maximum: T? = nil, inherits: InheritedKey? = nil)
    where T: Comparable {
        var constraints: [(String, Value)] = []
        if let minimum { constraints.append(("minimum", minimum.schemaValue)) }
        if let above { constraints.append(("exclusiveMinimum", above.schemaValue)) }
        if let maximum { constraints.append(("maximum", maximum.schemaValue)) }
        self.init(name, help: help, default: value, constraints: constraints, inherits: inherits)
    }

    /// A text parameter that must be given (it has no default), at least one character long.
    public init(required name: String, help: String) where T == String {
        self.init(name, help: help, default: "", constraints: [("minLength", .integer(1))], inherits: nil)
        isRequired = true
    }

    /// A text parameter matching `pattern` (a JSON Schema pattern, such as those of `TextPattern`).
    public init(_ name: String, help: String, default value: String, pattern: String, inherits: InheritedKey? = nil) where T == String {
        self.init(name, help: help, default: value, constraints: [("pattern", .string(pattern))], inherits: inherits)
    }

    /// A text parameter that must be given, at least one character long, matching `pattern`.
    public init(required name: String, help: String, pattern: String) where T == String {
        self.init(name, help: help, default: "", constraints: [("minLength", .integer(1)), ("pattern", .string(pattern))], inherits: nil)
        isRequired = true
    }

    /// A switch: true or false.
    public init(_ name: String, help: String, default value: Bool, inherits: InheritedKey? = nil) where T == Bool {
        self.init(name, help: help, default: value, constraints: [], inherits: inherits)
    }

    /// A parameter whose values are the cases of `T` (a `ParameterChoice`).
    public init(_ name: String, help: String, default value: T, inherits: InheritedKey? = nil) where T: ParameterChoice {
        self.init(name, help: help, default: value, constraints: [], inherits: inherits)
    }

    init(_ name: String, help: String, default value: T, constraints: [(String, Value)], inherits: InheritedKey?) {
        self.name = name
        self.help = help
        self.defaultValue = value
        self.constraints = constraints
        self.inherits = inherits
    }

    /// The validated value in `options`, or the default.
    public func value(in options: StrategyOptions) -> T {
        options.parameters[name].flatMap { T(schemaValue: $0.value) } ?? defaultValue
    }

    /// This declaration without its type, as a strategy type lists it.
    public var declaration: ParameterDeclaration {
        ParameterDeclaration(
            name: name, help: help, type: T.schemaType, allowedValues: T.allowedValues, constraints: constraints,
            defaultValue: isRequired ? nil : defaultValue.schemaValue, inherits: inherits)
    }
}

/// A parameter declaration without its Swift type: what the registry, the schema composer and
/// the documentation read.
public struct ParameterDeclaration: Sendable {
    public let name: String
    public let help: String
    /// The JSON Schema type: `number`, `integer`, `string` or `boolean`.
    public let type: String
    /// For choices: the allowed values, in declaration order.
    public let allowedValues: [String]?
    let constraints: [(String, Value)]
    /// Nil for a required parameter.
    public let defaultValue: Value?
    public let inherits: InheritedKey?

    /// True when a stage must give it.
    public var isRequired: Bool { defaultValue == nil }

    /// The parameter's JSON Schema as a stage writes it: type, allowed values, range and help.
    /// An inherited parameter has no `default` here (the configuration key supplies it).
    public var schema: Value {
        var pairs: [(String, Value)] = [("description", .string(description)), ("type", .string(type))]
        if let allowedValues { pairs.append(("enum", .array(allowedValues.map(Value.string)))) }
        pairs += constraints
        if inherits == nil, let defaultValue { pairs.append(("default", defaultValue)) }
        return .dictionary(pairs)
    }

    /// The schema the inherited configuration key takes from this declaration: type, allowed
    /// values, range and default.
    public var keySchema: [(String, Value)] {
        var pairs: [(String, Value)] = [("type", .string(type))]
        if let allowedValues { pairs.append(("enum", .array(allowedValues.map(Value.string)))) }
        pairs += constraints
        if let defaultValue { pairs.append(("default", defaultValue)) }
        return pairs
    }

    /// The help, with where an unset inherited value comes from.
    public var description: String {
        guard let inherits else { return help }
        return help + " Without it, \(inherits) applies."
    }
}
