import Foundation
import TimelineEngineCore
import TimelineEngineStrategyKit
import TimelineEngineValueTree

/// A named example of a merge policy at work, run by the conformance suite: writes to one
/// register, which of them the policy must make its value, why, and what it offers the reader.
/// The records arrive in their order; a policy that depends on the heads alone must give the
/// same answer in every order.
public struct MergeScenario: StrategyExample {
    public let name: String
    public let records: [PositionRecord]
    /// The index in `records` of the write that must win.
    public let expectedWinner: Int
    /// The reason the resolution must give, when the scenario says.
    public let expectedReason: String?
    /// The device that asks (`MergePolicy.resolve(_:on:)`); nil: none.
    public let device: String?
    /// The indices in `records` of the writes the policy must offer, the winner first; empty:
    /// it must restore silently.
    public let expectedOffer: [Int]
    /// Devices whose unchanged heads are reported again after the records arrive, in order
    /// (`Register.report(_:)`).
    public let reports: [String]
    /// The policy's parameters.
    public let parameters: Value.Dictionary

    public init(
        name: String, records: [PositionRecord], expectedWinner: Int, reason: String? = nil, device: String? = nil,
        offer: [Int] = [], reports: [String] = [], parameters: Value.Dictionary = [:]
    ) {
        self.name = name
        self.records = records
        self.expectedWinner = expectedWinner
        expectedReason = reason
        self.device = device
        expectedOffer = offer
        self.reports = reports
        self.parameters = parameters
    }
}

extension MergeScenario {
    public var parameterValues: Value.Dictionary { parameters }
}

extension PositionRecord {
    /// A write for a scenario, to register `me`/`home`: by `device`, its `sequence`-th, having
    /// seen `seen`, stamped `millis` ms (its clock) and saved at that time; at post `post`
    /// created at `created` seconds (nil: a tombstone); `explicit` marks a move back; `ordered`
    /// false leaves out progress, as on an algorithmic feed; `epoch`, the move back its reading
    /// follows (a device and its clock's milliseconds; none when nil).
    public static func example(
        _ device: String, _ sequence: UInt64, seen: [(String, UInt64)] = [], at millis: UInt64, _ post: String?, created: Double = 0,
        explicit: Bool = false, visit: Visit? = nil, moves: Moves = .init(older: 10, newer: 1), ordered: Bool = true,
        clocks: [(String, Int64)] = [], epoch: (device: String, at: UInt64)? = nil
    ) -> PositionRecord {
        let stamp = RegisterStamp(time: HybridTimestamp(milliseconds: millis, counter: 0), device: device)
        let inherited = epoch.map { RegisterStamp(time: HybridTimestamp(milliseconds: $0.at, counter: 0), device: $0.device) } ?? .zero
        return PositionRecord(
            key: RegisterKey(account: "me", timeline: "home"), stamp: stamp, sequence: sequence, context: VersionVector(seen),
            savedAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(millis) / 1000),
            snapshot: post.map { PositionSnapshot(postId: $0) }, epoch: post == nil || explicit ? stamp : inherited,
            progress: ordered ? post.map { .init(createdAt: created, postId: $0) } : nil, visit: visit, moves: moves,
            clocks: ClockOffsets(clocks))
    }
}
