import BestConfidence
import CacheChain
import ContentSimilarity
import ExactMatch
import ExponentialBackoff
import Fallback
import FirstMatch
import LRU
import NeighborAnchor
import NoRetry
import SizeBounded
import StrategyKit
import TTL
import TemporalProximity
import TimelineLogging
import ValueTree
import ViewportAnchor
import WeightedVote

/// Every built-in strategy type, listed in this one place. A new built-in is a target under
/// `Strategies/` whose `type` is added here (see docs/ADDING_A_STRATEGY.md).
public enum BuiltInStrategies {
    public static let all: [StrategyType] = [
        ExactMatchStrategy.type,
        NeighborAnchorStrategy.type,
        TemporalProximityStrategy.type,
        ContentSimilarityStrategy.type,
        FallbackStrategy.type,
        ViewportAnchorStrategy.type,
        FirstMatchStrategy.type,
        BestConfidenceStrategy.type,
        WeightedVoteStrategy.type,
        LRUPolicy.type,
        TTLPolicy.type,
        SizeBoundedPolicy.type,
        CacheChainPolicy.type,
        NoRetryPolicy.type,
        ExponentialBackoffPolicy.type,
    ] + logSinks

    /// The registry of the built-ins.
    public static let registry = StrategyRegistry(all)

    /// The log sinks of `TimelineLogging`, as registry entries.
    static let logSinks: [StrategyType] = LogSinkFactory.builtIns.map { factory in
        let parameters: Value = factory.name == "JSONLines"
            ? ParameterSchema.object([("Path", .dictionary([
                ("description", .string("The file the records are appended to.")), ("type", .string("string")), ("minLength", .integer(1)),
            ]))])
            : ParameterSchema.object([])
        var required: Value = parameters
        if factory.name == "JSONLines", var members = required.dictionaryValue {
            members["required"] = Value.Member(value: .array([.string("Path")]))
            required = Value(.dictionary(members))
        }
        return StrategyType(name: factory.name, kind: .logSink, summary: factory.summary, parameterSchema: required) { _ in
            throw StrategyError("log sinks are created by LoggingSettings.makeSinks")
        }
    }
}
