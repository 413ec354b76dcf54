import StrategyKit
import ValueTree

/// Scenario parameters given as numbers, as a factory receives them.
enum ScenarioParameters {
    /// `numbers` in key order, each written as a declared parameter writes it.
    static func dictionary(_ numbers: [String: Double]) -> Value.Dictionary {
        var parameters = Value.Dictionary()
        for (key, value) in numbers.sorted(by: { $0.key < $1.key }) { parameters[key] = Value.Member(value: value.schemaValue) }
        return parameters
    }
}
