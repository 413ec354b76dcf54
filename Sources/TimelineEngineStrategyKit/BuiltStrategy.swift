/// What a factory builds: a component of its type's kind. Each kind's module adds a constructor
/// that names it (`.restoration(stage)`, `.merge(policy)`), and the registry checks the component
/// against the kind.
public struct BuiltStrategy: Sendable {
    /// The component, of the protocol its kind declares.
    public let component: any Sendable

    public init(_ component: any Sendable) {
        self.component = component
    }

    /// The component as `type`, or nil when it is not one.
    public func `as`<T>(_ type: T.Type) -> T? {
        component as? T
    }
}
