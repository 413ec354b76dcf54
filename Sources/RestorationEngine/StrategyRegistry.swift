import StrategyKit

/// Strategy types by kind and by name.
public struct StrategyRegistry: Sendable {
    public let types: [StrategyType]

    public init(_ types: [StrategyType]) {
        self.types = types
    }

    /// The type registered under `name`.
    public subscript(name: String) -> StrategyType? {
        types.first { $0.name == name }
    }

    public func types(of kind: StrategyKind) -> [StrategyType] {
        types.filter { $0.kind == kind }
    }

    public var names: [String] { types.map(\.name) }

    /// Every type that can stand in a pipeline (restoration, fallback and positioning).
    public var stageTypes: [StrategyType] {
        types.filter { [.restoration, .fallback, .positioning].contains($0.kind) }
    }
}
