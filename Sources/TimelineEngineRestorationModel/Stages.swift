import TimelineEngineCore

/// A restoration or fallback stage: proposes a post, or nothing.
public protocol RestorationStage: Sendable {
    /// The registered name, as the configuration writes it.
    var name: String { get }
    /// The weight of this stage's vote in a WeightedVote composition.
    var weight: Double { get }
    /// Proposes a candidate, appending what it did (and what nested stages did) to `trace`.
    func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth: Int) -> Candidate?
}

extension RestorationStage {
    public var weight: Double { 1 }
}

/// A positioning stage: turns a chosen candidate into a scroll position.
public protocol PositioningStage: Sendable {
    var name: String { get }
    func place(_ candidate: Candidate, request: RestorationRequest) -> Restoration
}

/// A restoration stage with a `Weight` other than 1, as the registry builds it: proposes what
/// the stage proposes, and votes with `weight` in a WeightedVote composition.
public struct WeightedStage: RestorationStage {
    public let base: any RestorationStage
    public let weight: Double

    public init(_ base: any RestorationStage, weight: Double) {
        self.base = base
        self.weight = weight
    }

    public var name: String { base.name }

    public func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth: Int) -> Candidate? {
        base.propose(request, trace: &trace, depth: depth)
    }
}
