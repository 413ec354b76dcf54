/// A Swift type a declared value can have (a strategy's parameter, a configuration key): how it
/// is written in JSON Schema and read back from a validated `Value`.
public protocol ParameterValue: Sendable {
    /// The JSON Schema `type`: `number`, `integer`, `boolean` or `string`.
    static var schemaType: String { get }
    /// The allowed values, for a choice.
    static var allowedValues: [String]? { get }
    /// The value as the schema and the parameters write it.
    var schemaValue: Value { get }
    /// The value read back from a validated parameter, or nil when it has another type.
    init?(schemaValue: Value)
}

extension ParameterValue {
    public static var allowedValues: [String]? { nil }
}

extension Double: ParameterValue {
    public static var schemaType: String { "number" }
    /// Integral values print as integers (3600, not 3600.0).
    public var schemaValue: Value {
        if self == rounded(), abs(self) < 1e15 { return .integer(Int(self)) }
        return .real(self)
    }

    public init?(schemaValue: Value) {
        guard let number = schemaValue.numberValue else { return nil }
        self = number
    }
}

extension Int: ParameterValue {
    public static var schemaType: String { "integer" }
    public var schemaValue: Value { .integer(self) }

    public init?(schemaValue: Value) {
        guard let number = schemaValue.numberValue, let integer = Int(exactly: number.rounded()) else { return nil }
        self = integer
    }
}

extension Bool: ParameterValue {
    public static var schemaType: String { "boolean" }
    public var schemaValue: Value { .bool(self) }

    public init?(schemaValue: Value) {
        guard let bool = schemaValue.boolValue else { return nil }
        self = bool
    }
}

extension String: ParameterValue {
    public static var schemaType: String { "string" }
    public var schemaValue: Value { .string(self) }

    public init?(schemaValue: Value) {
        guard let string = schemaValue.stringValue else { return nil }
        self = string
    }
}

/// A declared value whose values are the cases of a string enum: the schema's `enum` lists them,
/// and a misspelt value gets "did you mean".
public protocol ParameterChoice: ParameterValue, CaseIterable, RawRepresentable where RawValue == String {}

extension ParameterChoice {
    public static var schemaType: String { "string" }
    // A closure, not `\.rawValue`: a key path in this generic context is built at run time,
    // which looks its conformances up in every conformance record of the binary.
    public static var allowedValues: [String]? { allCases.map { $0.rawValue } }
    public var schemaValue: Value { .string(rawValue) }

    public init?(schemaValue: Value) {
        guard let string = schemaValue.stringValue else { return nil }
        self.init(rawValue: string)
    }
}
