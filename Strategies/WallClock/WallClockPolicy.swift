import Foundation
import TimelineEngineCore
import TimelineEngineStrategyKit
import TimelineEngineSyncModel

/// WallClock: of every device's latest write, the one saved latest by its own device's wall
/// clock (`savedAt`) wins, then the greater device id; a tombstone like any write. Causality and
/// what devices learned of each other's clocks are not consulted.
///
/// It models apps that keep the position in iCloud's key-value store and merge on read by the
/// time written, as SocialFusion's `PositionSyncService` (last writer wins on the read time) and
/// Mammoth do: the iCloud service keeps the last write it received and tells the other devices
/// later, so the client compares the times the writers stamped.
///
/// The failure: a device whose clock is wrong decides. A laptop an hour fast wins every
/// comparison for an hour, so the reader is sent back to it after reading on elsewhere
/// (`clock-fast`); a device a day slow never wins.
public struct WallClockPolicy: MergePolicy, DeclaredStrategy {
    public static let type = StrategyType(
        name: "WallClock", kind: .merge,
        summary: "The write saved latest by its own device's wall clock wins, as apps that merge iCloud key-value positions by time.",
        examples: WallClockPolicy.scenarios
    ) { _ in
        .merge(WallClockPolicy())
    }

    public init() {}

    public func resolve(_ register: Register) -> Resolution {
        let winner = register.heads.max { a, b in
            a.savedAt != b.savedAt ? a.savedAt < b.savedAt : VersionVector.precedes(a.device, b.device)
        }
        guard let winner else { return .empty }
        return Resolution(winner: winner, candidates: register.heads, reason: register.heads.count == 1 ? "one device" : "latest by its clock")
    }

    static let scenarios: [MergeScenario] = [
        MergeScenario(
            name: "a laptop an hour fast wins over the phone's reading since",
            records: [.example("laptop", 3, at: 3_601_000, "p50", created: 500), .example("phone", 6, at: 120_000, "p30", created: 300)],
            expectedWinner: 0, reason: "latest by its clock"),
        MergeScenario(
            name: "a write that saw the other loses to it when its clock is behind",
            records: [
                .example("phone", 4, at: 200_000, "p40", created: 400),
                .example("laptop", 2, seen: [("phone", 4)], at: 100_000, "p45", created: 450),
            ],
            expectedWinner: 0),
        MergeScenario(
            name: "the same time: the greater device id",
            records: [.example("ipad", 4, at: 1_000, "p40"), .example("phone", 2, at: 1_000, "p45")], expectedWinner: 1),
        MergeScenario(
            name: "a later tombstone wins", records: [.example("phone", 4, at: 1_000, "p40"), .example("ipad", 2, at: 2_000, nil)],
            expectedWinner: 1),
    ]
}
