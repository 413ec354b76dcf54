import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// A configuration key, declared once, on the property that holds its value: its name, title,
/// help, default and range make the key's JSON Schema, and the same declaration reads the
/// validated value back. Strategies' parameters are declared the same way (`Parameter<T>`).
///
/// ```swift
/// @Setting("DebounceInterval", title: "Debounce interval", range: 0...3600,
///          help: "Seconds to wait after a change before writing it out.")
/// public var debounceInterval: Double = 3
/// ```
@propertyWrapper
public struct Setting<T: ParameterValue & Equatable>: DeclaredSetting {
    public var wrappedValue: T
    public let declaration: SettingDeclaration

    /// A number with an inclusive range.
    public init(
        wrappedValue defaultValue: T, _ name: String, title: String, range: ClosedRange<T>, deprecated: Bool = false,
        help: String
    ) where T: Comparable {
        self.init(
            defaultValue, name, title: title, help: help,
            constraints: [("minimum", range.lowerBound.schemaValue), ("maximum", range.upperBound.schemaValue)],
            deprecated: deprecated)
    }

    /// A number above an exclusive lower bound (`above`) and at most `maximum`.
    public init(wrappedValue defaultValue: T, _ name: String, title: String, above: T, maximum: T, help: String) where T: Comparable {
        self.init(
            defaultValue, name, title: title, help: help,
            constraints: [("exclusiveMinimum", above.schemaValue), ("maximum", maximum.schemaValue)], deprecated: false)
    }

    /// A text matching `pattern` (a JSON Schema pattern, such as those of `TextPattern`).
    public init(wrappedValue defaultValue: T, _ name: String, title: String, pattern: String, help: String) where T == String {
        self.init(defaultValue, name, title: title, help: help, constraints: [("pattern", .string(pattern))], deprecated: false)
    }

    /// A switch, a text, or a choice among the cases of a `ParameterChoice`.
    public init(wrappedValue defaultValue: T, _ name: String, title: String, deprecated: Bool = false, help: String) {
        self.init(defaultValue, name, title: title, help: help, constraints: [], deprecated: deprecated)
    }

    init(_ defaultValue: T, _ name: String, title: String, help: String, constraints: [(String, Value)], deprecated: Bool) {
        var schema: [(String, Value)] = [("title", .string(title)), ("description", .string(help)), ("type", .string(T.schemaType))]
        if let allowed = T.allowedValues { schema.append(("enum", .array(allowed.map(Value.string)))) }
        schema += constraints
        schema.append(("default", defaultValue.schemaValue))
        if deprecated { schema.append(("deprecated", .bool(true))) }
        declaration = SettingDeclaration(name: name, schema: .dictionary(schema))
        wrappedValue = SettingsReading.resolved(name).flatMap(T.init(schemaValue:)) ?? defaultValue
    }

    public static func == (lhs: Setting, rhs: Setting) -> Bool { lhs.wrappedValue == rhs.wrappedValue }
}

/// A configuration key whose type, allowed values and default come from the strategy parameter
/// that inherits it (`Restoration.MinimumConfidence`, FirstMatch's): the schema composer takes
/// them from that declaration, so they are written once, there. Nil only when the value was
/// not resolved against a composed schema. The parameter names the key through its projected
/// value: `RestorationSettings.inheritedKey(\.$minimumConfidence)`.
@propertyWrapper
public struct InheritedSetting<T: ParameterValue & Equatable>: DeclaredSetting {
    public var wrappedValue: T?
    public let declaration: SettingDeclaration

    /// The declaration itself, for `ConfigurationSection.inheritedKey(_:)`.
    public var projectedValue: InheritedSetting<T> { self }

    public init(wrappedValue: T? = nil, _ name: String, title: String, help: String) {
        declaration = SettingDeclaration(name: name, schema: .dictionary([("title", .string(title)), ("description", .string(help))]))
        self.wrappedValue = SettingsReading.resolved(name).flatMap(T.init(schemaValue:)) ?? wrappedValue
    }

    public static func == (lhs: InheritedSetting, rhs: InheritedSetting) -> Bool { lhs.wrappedValue == rhs.wrappedValue }
}

/// A declared key without its Swift type: its name and its JSON Schema, which the
/// configuration schema is assembled from.
public struct SettingDeclaration: Sendable {
    public let name: String
    public let schema: Value
}

/// A property wrapper that declares a configuration key.
public protocol DeclaredSetting: Sendable, Equatable {
    var declaration: SettingDeclaration { get }
}

extension ConfigurationSection {
    /// The key declared at `property` (an `@InheritedSetting`'s projected value), as a strategy
    /// parameter inherits it.
    public static func inheritedKey<T>(_ property: KeyPath<Self, InheritedSetting<T>>) -> InheritedKey {
        InheritedKey(section: name, key: Self()[keyPath: property].declaration.name)
    }
}
