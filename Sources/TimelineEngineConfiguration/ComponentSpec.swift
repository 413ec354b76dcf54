import TimelineEngineValueTree

/// One stage of a pipeline, one policy, or one log sink: a registered name and its parameters.
public struct ComponentSpec: Sendable, Equatable {
    /// The key that holds a component's name in a configuration (`Strategy`); log sinks use `Sink`.
    public static let strategyKey = "Strategy"
    /// The key under which a composition lists its components.
    public static let stagesKey = "Stages"

    /// The registered name (`ExactMatch`, `JSONLines`, …).
    public var name: String
    /// Every other key of the stage's dictionary.
    public var parameters: Value.Dictionary

    public init(name: String, parameters: Value.Dictionary = [:]) {
        self.name = name
        self.parameters = parameters
    }

    /// A component as a configuration writes it: its name alone, or a dictionary with its name
    /// under `nameKey` and its parameters beside it. Nil for any other value.
    public init?(written value: Value, nameKey: String) {
        if let name = value.stringValue {
            self.init(name: name)
            return
        }
        guard var members = value.dictionaryValue, let name = members[Value.Key(nameKey)]?.value.stringValue else { return nil }
        members.removeValue(forKey: Value.Key(nameKey))
        self.init(name: name, parameters: members)
    }

    /// The component as a dictionary: its name under `nameKey`, its parameters beside it.
    public func written(nameKey: String) -> Value {
        var members: Value.Dictionary = [Value.Key(nameKey): Value.Member(value: .string(name))]
        for (key, member) in parameters { members[key] = member }
        return Value(.dictionary(members))
    }
}
