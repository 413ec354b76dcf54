import TimelineEngineValueTree

/// A configuration key that names one registered component (a merge policy, a transport, a
/// reach strategy, a network policy): its name alone, or a dictionary with the name under
/// `Strategy` and its parameters beside it. `kind` is the name of the strategy kind
/// (`StrategyKind`) whose components it names: the schema composer fills `$defs/<kind>` with
/// them, and writes the default as the kind's configuration face says.
@propertyWrapper
public struct ComponentSetting: DeclaredSetting {
    public var wrappedValue: ComponentSpec
    public let declaration: SettingDeclaration

    public init(wrappedValue defaultValue: ComponentSpec, _ name: String, title: String, kind: String, help: String) {
        let written =
            defaultValue.parameters.isEmpty ? Value.string(defaultValue.name) : defaultValue.written(nameKey: ComponentSpec.strategyKey)
        declaration = SettingDeclaration(
            name: name,
            schema: .dictionary([
                ("title", .string(title)), ("description", .string(help)), ("$ref", .string("#/$defs/\(kind)")), ("default", written),
            ]))
        wrappedValue = SettingsReading.resolved(name).flatMap { ComponentSpec(written: $0, nameKey: ComponentSpec.strategyKey) } ?? defaultValue
    }

    public static func == (lhs: ComponentSetting, rhs: ComponentSetting) -> Bool { lhs.wrappedValue == rhs.wrappedValue }
}

/// A configuration key that lists components, each a dictionary with its name under `nameKey`
/// (log sinks).
@propertyWrapper
public struct ComponentListSetting: DeclaredSetting {
    public var wrappedValue: [ComponentSpec]
    public let declaration: SettingDeclaration

    public init(
        wrappedValue defaultValue: [ComponentSpec], _ name: String, title: String, definition: String, nameKey: String,
        help: String
    ) {
        declaration = SettingDeclaration(
            name: name,
            schema: .dictionary([
                ("title", .string(title)), ("description", .string(help)), ("type", .string("array")),
                ("items", .dictionary([("$ref", .string("#/$defs/\(definition)"))])),
                ("default", .array(defaultValue.map { $0.written(nameKey: nameKey) })),
            ]))
        wrappedValue =
            SettingsReading.resolved(name)?.arrayValue.map { $0.compactMap { ComponentSpec(written: $0, nameKey: nameKey) } }
            ?? defaultValue
    }

    public static func == (lhs: ComponentListSetting, rhs: ComponentListSetting) -> Bool { lhs.wrappedValue == rhs.wrappedValue }
}

/// A configuration key that lists components of the strategy kind `kind` and, when the file
/// does not give it, follows other keys (`Restoration.Pipeline` follows `PositionPersistence`):
/// nil unless the file gives it. The list it stands for is the registry's to derive, and the
/// schema composer writes that list as the key's default.
@propertyWrapper
public struct DerivedComponentListSetting: DeclaredSetting {
    public var wrappedValue: [ComponentSpec]?
    public let declaration: SettingDeclaration

    public init(wrappedValue: [ComponentSpec]? = nil, _ name: String, title: String, kind: String, help: String) {
        declaration = SettingDeclaration(
            name: name,
            schema: .dictionary([
                ("title", .string(title)), ("description", .string(help)), ("type", .string("array")),
                ("items", .dictionary([("$ref", .string("#/$defs/\(kind)"))])), ("minItems", .integer(1)),
            ]))
        self.wrappedValue =
            SettingsReading.given(name).flatMap { _ in
                SettingsReading.resolved(name)?.arrayValue?.compactMap { ComponentSpec(written: $0, nameKey: ComponentSpec.strategyKey) }
            } ?? wrappedValue
    }

    public static func == (lhs: DerivedComponentListSetting, rhs: DerivedComponentListSetting) -> Bool {
        lhs.wrappedValue == rhs.wrappedValue
    }
}
