import TimelineEngineValueTree

/// One section of the configuration (`Sync`, `Restoration`, …): a struct whose properties are
/// its keys, each declared by a setting wrapper (`@Setting`, `@ComponentSetting`, …). The
/// section's schema and its typed reading both come from those declarations.
public protocol ConfigurationSection: Sendable, Equatable {
    /// The section's key (`Sync`).
    static var name: String { get }
    static var title: String { get }
    static var help: String { get }
    /// Every key at its default.
    init()
}

extension ConfigurationSection {
    /// The section read from `resolved` (its value in a configuration whose defaults are
    /// filled in) and `given` (its value in the file as written, which decides keys that
    /// follow others when absent).
    public init(resolved: Value?, given: Value?) {
        self = SettingsReading.$current.withValue(SettingsReading.Source(resolved: resolved, given: given)) { Self() }
    }

    /// The declarations of the section's keys, in the order the struct declares them.
    public static var declarations: [SettingDeclaration] {
        let defaults = SettingsReading.$current.withValue(nil) { Self() }
        return Mirror(reflecting: defaults).children.compactMap { ($0.value as? any DeclaredSetting)?.declaration }
    }

    /// The section's JSON Schema: an object of its keys, each optional.
    public static var schema: Value {
        .dictionary([
            ("title", .string(title)), ("description", .string(help)), ("type", .string("object")),
            ("default", .dictionary([])),
            ("properties", .dictionary(declarations.map { ($0.name, $0.schema) })),
            ("additionalProperties", .bool(false)),
        ])
    }
}

/// The section a setting wrapper reads its value from while a section is built
/// (`ConfigurationSection.init(resolved:given:)`); outside of that, wrappers take their defaults.
enum SettingsReading {
    struct Source: Sendable {
        let resolved: Value?
        let given: Value?
    }

    @TaskLocal static var current: Source?

    /// The key's value in the resolved section being read.
    static func resolved(_ key: String) -> Value? { current?.resolved?[key] }

    /// The key's value in the section as the file gives it.
    static func given(_ key: String) -> Value? { current?.given?[key] }
}
