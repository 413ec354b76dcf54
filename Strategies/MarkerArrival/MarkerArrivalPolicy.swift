import Foundation
import TimelineEngineCore
import TimelineEngineStrategyKit
import TimelineEngineSyncModel

/// MarkerArrival: the write that reached this replica last wins, whatever it had seen, whenever
/// it was made and wherever it points. It models Mastodon's read markers as Ice Cubes and
/// Mastodon's web client use them: `POST /api/v1/markers` overwrites the stored `last_read_id`
/// unconditionally, and every client resumes from what the server holds.
///
/// The failure on record: a device opened at an old place that saves it drags every other
/// device back. Mastodon's web client stopped writing the home marker because stale clients
/// moved readers back (mastodon#22721; also #23677, #28633, IceCubesApp#1398). In a comparison
/// it shows as back jumps where a stale device is glanced at before the reader returns
/// (`stale-device`). It never prompts. A new write counts when it arrives; a device that sends
/// its unchanged position again does not move the marker (compare `Overwrite`), nor does a
/// device that publishes its own write again with more learned of the other clocks (the
/// engine's `clocksRevision`, which a marker server never sees).
public struct MarkerArrivalPolicy: MergePolicy, DeclaredStrategy {
    public static let type = StrategyType(
        name: "MarkerArrival", kind: .merge,
        summary: "The write that arrived last wins, as Mastodon's read markers, which the server overwrites unconditionally.",
        examples: MarkerArrivalPolicy.scenarios
    ) { _ in
        .merge(MarkerArrivalPolicy())
    }

    public init() {}

    public var inputs: MergeInputs { .arrivalOrder }

    public func resolve(_ register: Register) -> Resolution {
        guard let winner = register.lastArrived else { return .empty }
        return Resolution(winner: winner, candidates: register.heads, reason: register.heads.count == 1 ? "one device" : "arrived last")
    }

    static let scenarios: [MergeScenario] = [
        MergeScenario(
            name: "a stale device's write that arrives last wins, though the reader read further elsewhere",
            records: [
                .example("phone", 4, at: 600_000, "p40", created: 400),
                .example("laptop", 2, at: 700_000, "p12", created: 120, visit: .init(seconds: 6, posts: 1)),
            ],
            expectedWinner: 1, reason: "arrived last"),
        MergeScenario(
            name: "a write made earlier that arrives later wins",
            records: [.example("laptop", 2, at: 700_000, "p45", created: 450), .example("phone", 4, at: 600_000, "p40", created: 400)],
            expectedWinner: 1, reason: "arrived last"),
        MergeScenario(
            name: "a device that publishes its own old write again with the clock bounds it learned has made no new write",
            records: [
                .example("laptop", 2, at: 600_000, "p2", created: 20),
                .example("phone", 4, at: 700_000, "p30", created: 300),
                {
                    // The laptop heard the phone and published its head again, bounds raised.
                    var again = PositionRecord.example("laptop", 2, at: 600_000, "p2", created: 20, clocks: [("phone", -1_000)])
                    again.clocksRevision = 1
                    return again
                }(),
            ],
            expectedWinner: 1, reason: "arrived last"),
        MergeScenario(
            name: "a device sending its unchanged position again does not move the marker",
            records: [.example("laptop", 2, at: 600_000, "p12", created: 120), .example("phone", 4, at: 700_000, "p40", created: 400)],
            expectedWinner: 1, reports: ["laptop"]),
        MergeScenario(
            name: "a tombstone that arrives last forgets the position",
            records: [.example("phone", 4, at: 600_000, "p40", created: 400), .example("laptop", 2, at: 500_000, nil)], expectedWinner: 1),
        MergeScenario(name: "one device", records: [.example("phone", 1, at: 1_000, "p1")], expectedWinner: 0, reason: "one device"),
    ]
}
