import Foundation
import TimelineEngineCore
import TimelineEngineStrategyKit
import TimelineEngineSyncModel

/// Overwrite: the last report wins. Every time a device reports its position, a new one or the
/// same again when it reconnects or while it stays open, that report overwrites what the others
/// sent. It models the progress sync of Pocket Casts and Jellyfin, where the server keeps the
/// last reported position.
///
/// The failures on record: Pocket Casts Android#3750, a device that reconnected reset an
/// episode's progress from 80 % to 20 %; Jellyfin#1459, a paused client kept reporting and
/// overwrote progress made on another device. In a comparison it shows as back jumps wherever a
/// device the reader left sends its old position after the reader moved on elsewhere
/// (`two-devices`, `stale-device`). It never prompts. Replays and transports that hear a
/// device's unchanged head again report it (`Register.report(_:)`).
public struct OverwritePolicy: MergePolicy, DeclaredStrategy {
    public static let type = StrategyType(
        name: "Overwrite", kind: .merge,
        summary: "The last report wins, even an unchanged position sent again, as Pocket Casts and Jellyfin keep progress.",
        examples: OverwritePolicy.scenarios
    ) { _ in
        .merge(OverwritePolicy())
    }

    public init() {}

    public var inputs: MergeInputs { .arrivalOrder }

    public func resolve(_ register: Register) -> Resolution {
        guard let winner = register.lastReported else { return .empty }
        return Resolution(winner: winner, candidates: register.heads, reason: register.heads.count == 1 ? "one device" : "reported last")
    }

    static let scenarios: [MergeScenario] = [
        MergeScenario(
            name: "a device the reader left sends its old position again: it overwrites the reading done since",
            records: [.example("laptop", 2, at: 600_000, "p12", created: 120), .example("phone", 4, at: 700_000, "p40", created: 400)],
            expectedWinner: 0, reason: "reported last", reports: ["laptop"]),
        MergeScenario(
            name: "without a report again, the last write to arrive wins",
            records: [.example("laptop", 2, at: 600_000, "p12", created: 120), .example("phone", 4, at: 700_000, "p40", created: 400)],
            expectedWinner: 1, reason: "reported last"),
        MergeScenario(
            name: "the latest of several reports wins",
            records: [.example("laptop", 2, at: 600_000, "p12", created: 120), .example("phone", 4, at: 700_000, "p40", created: 400)],
            expectedWinner: 1, reports: ["laptop", "phone"]),
        MergeScenario(name: "one device", records: [.example("phone", 1, at: 1_000, "p1")], expectedWinner: 0, reason: "one device"),
    ]
}
