/// How a register's value follows from its heads (`Register`). The project's own policies are a
/// pure function of the heads, so replicas that hold the same heads agree on the value, whatever
/// order the writes came in. The policies that model other apps' rules may depend on more
/// (`inputs`): the order in which the heads reached this replica, or the device that asks.
/// The heads themselves are merged the same way under every policy; a policy only reads them.
/// The conformance suite checks every registered policy's scenarios (in every order of
/// delivery, when the policy depends on the heads alone) and convergence on random histories
/// (for the policies that depend on the heads alone).
public protocol MergePolicy: Sendable {
    /// The registered name.
    var name: String { get }
    /// What the value depends on besides the heads; none by default.
    var inputs: MergeInputs { get }
    /// The register's value, the heads that competed for it and why it won. Decide from the
    /// heads' sequences, contexts, stamps, epochs, progress, visits and moves (and, for the
    /// policies whose `inputs` say so, their arrival order): the store resolves rows without
    /// decoding their snapshots.
    func resolve(_ register: Register) -> Resolution
    /// The resolution as `device` sees it: the same as `resolve(_:)` unless the policy decides
    /// per device (whether to prompt, or whether to move a device back); nil asks as no device.
    func resolve(_ register: Register, on device: String?) -> Resolution
    /// The register's value: the winning write (a tombstone when the position was forgotten),
    /// or nil for a register with no heads. `resolve(_:).winner` by default; a policy may
    /// answer faster, without the candidates and the reason.
    func value(of register: Register) -> PositionRecord?
    /// Why each other head was or was not offered beside the winner, one line each, for a
    /// reader of `engine replay --explain`; empty where the policy does not say (the default).
    func offerNotes(_ register: Register, on device: String?) -> [String]
}

/// What a merge policy's value depends on besides the heads.
public struct MergeInputs: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The order in which the heads reached this replica (`Register.arrivals`): replicas that
    /// heard the same writes in different orders may hold different values.
    public static let arrivalOrder = MergeInputs(rawValue: 1)
    /// The device that asks (`resolve(_:on:)`): what it prompts, or where it stays.
    public static let device = MergeInputs(rawValue: 2)
}

extension MergePolicy {
    public var inputs: MergeInputs { [] }

    public func resolve(_ register: Register, on device: String?) -> Resolution {
        resolve(register)
    }

    public func value(of register: Register) -> PositionRecord? {
        resolve(register).winner
    }

    public func offerNotes(_ register: Register, on device: String?) -> [String] { [] }
}

/// What a policy decided for a register.
public struct Resolution: Sendable, Equatable {
    /// The winning write; nil for an empty register.
    public var winner: PositionRecord?
    /// The heads it was chosen among (for the causal policy, the live heads).
    public var candidates: [PositionRecord]
    /// Why it won, in a few words: "one live head", "concurrent; furthest", …
    public var reason: String
    /// The positions to offer the reader, the winner first, when the policy asks rather than
    /// restores silently ("Continue from laptop · 3 min ago?"); empty: restore the winner
    /// without asking.
    public var offer: [PositionRecord]

    public init(winner: PositionRecord?, candidates: [PositionRecord], reason: String, offer: [PositionRecord] = []) {
        self.winner = winner
        self.candidates = candidates
        self.reason = reason
        self.offer = offer
    }

    /// Whether the app should ask the reader instead of restoring silently.
    public var prompts: Bool { !offer.isEmpty }

    /// No heads: no value.
    public static let empty = Resolution(winner: nil, candidates: [], reason: "no position")
}
