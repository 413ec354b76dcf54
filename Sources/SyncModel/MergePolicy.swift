/// How a register's value follows from its heads (`Register`): a pure function of them, so
/// replicas that hold the same heads agree on the value, whatever order the writes came in.
/// The heads themselves are merged the same way under every policy; a policy only reads them.
/// The conformance suite checks every registered policy's scenarios in every order of
/// delivery, and convergence on random histories.
public protocol MergePolicy: Sendable {
    /// The registered name.
    var name: String { get }
    /// The register's value, the heads that competed for it and why it won. Decide from the
    /// heads' sequences, contexts, stamps, epochs, progress, visits and moves: the store
    /// resolves rows without decoding their snapshots.
    func resolve(_ register: Register) -> Resolution
    /// The register's value: the winning write (a tombstone when the position was forgotten),
    /// or nil for a register with no heads. `resolve(_:).winner` by default; a policy may
    /// answer faster, without the candidates and the reason.
    func value(of register: Register) -> PositionRecord?
}

extension MergePolicy {
    public func value(of register: Register) -> PositionRecord? {
        resolve(register).winner
    }
}

/// What a policy decided for a register.
public struct Resolution: Sendable, Equatable {
    /// The winning write; nil for an empty register.
    public var winner: PositionRecord?
    /// The heads it was chosen among (for the causal policy, the live heads).
    public var candidates: [PositionRecord]
    /// Why it won, in a few words: "one live head", "concurrent; furthest", …
    public var reason: String

    public init(winner: PositionRecord?, candidates: [PositionRecord], reason: String) {
        self.winner = winner
        self.candidates = candidates
        self.reason = reason
    }

    /// No heads: no value.
    public static let empty = Resolution(winner: nil, candidates: [], reason: "no position")
}
