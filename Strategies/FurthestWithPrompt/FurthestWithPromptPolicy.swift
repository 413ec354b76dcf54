import Foundation
import TimelineEngineCore
import TimelineEngineStrategyKit
import TimelineEngineSyncModel

/// FurthestWithPrompt: the furthest position read on any device wins (progress in the reading
/// `Direction`, then the latest by its clock), and a device whose own position is elsewhere
/// asks the reader before moving: Kindle's Whispersync ("Your most recent page read is 64. Go to
/// page 64?"). Moves back are never kept, and a tombstone has no progress: it loses to any
/// position.
///
/// The failures: it asks at every device switch, even when one device did all the reading and
/// there is nothing to choose (the phantom prompt readers report of Kobo and Readest,
/// calibre-web#3607, Readest#3137 and #5528); and a move back to re-read, on purpose or by hand,
/// loses to the furthest place on the next device (`scroll-back`, `scroll-back-by-hand`).
public struct FurthestWithPromptPolicy: MergePolicy, DeclaredStrategy {
    public static let type = StrategyType(
        name: "FurthestWithPrompt", kind: .merge,
        summary: "The furthest position read wins, and a device elsewhere asks before moving, as Kindle's Whispersync.",
        parameters: [DirectionChoice.parameter.declaration],
        examples: FurthestWithPromptPolicy.scenarios
    ) { options in
        .merge(FurthestWithPromptPolicy(direction: options(DirectionChoice.parameter)))
    }

    public let direction: DirectionChoice

    public init(direction: DirectionChoice = DirectionChoice.parameter.defaultValue) {
        self.direction = direction
    }

    public var inputs: MergeInputs { .device }

    public func resolve(_ register: Register) -> Resolution {
        resolve(register, on: nil)
    }

    public func resolve(_ register: Register, on device: String?) -> Resolution {
        let direction = self.direction.direction(in: register)
        let winner = register.heads.max { a, b in
            switch (a.progress, b.progress) {
            case (nil, _?): return true
            case (_?, nil): return false
            case (let pa?, let pb?) where pa != pb && direction != nil: return direction!.isFurther(pb, than: pa)
            default: return a.savedAt != b.savedAt ? a.savedAt < b.savedAt : VersionVector.precedes(a.device, b.device)
            }
        }
        guard let winner else { return .empty }
        var resolution = Resolution(winner: winner, candidates: register.heads, reason: register.heads.count == 1 ? "one device" : "furthest read")
        if let device, winner.device != device, let own = register.head(of: device), let ownPost = own.snapshot?.postId,
            winner.snapshot?.postId != ownPost
        {
            resolution.offer = [winner, own]
        }
        return resolution
    }

    static let scenarios: [MergeScenario] = [
        MergeScenario(
            name: "one device did the reading: the other asks anyway",
            records: [
                .example("laptop", 2, at: 100_000, "p20", created: 800),
                .example("phone", 6, seen: [("laptop", 2)], at: 900_000, "p45", created: 550),
            ],
            expectedWinner: 1, reason: "furthest read", device: "laptop", offer: [1, 0]),
        MergeScenario(
            name: "a move back to re-read loses to the furthest place, which the device offers",
            records: [
                .example("phone", 6, at: 100_000, "p45", created: 550),
                .example("laptop", 3, seen: [("phone", 6)], at: 900_000, "p38", created: 620, explicit: true),
            ],
            expectedWinner: 0, device: "laptop", offer: [0, 1]),
        MergeScenario(
            name: "the device that read furthest does not ask",
            records: [.example("laptop", 2, at: 100_000, "p20", created: 800), .example("phone", 6, at: 900_000, "p45", created: 550)],
            expectedWinner: 1, device: "phone", offer: []),
        MergeScenario(
            name: "a tombstone loses to any position",
            records: [.example("laptop", 2, at: 100_000, "p20", created: 800), .example("phone", 6, at: 900_000, nil)], expectedWinner: 0),
        MergeScenario(
            name: "reading towards newer posts: the newer is further",
            records: [
                .example("laptop", 2, at: 100_000, "p20", created: 800, moves: .init(older: 0, newer: 5)),
                .example("phone", 6, at: 900_000, "p45", created: 550, moves: .init(older: 0, newer: 5)),
            ],
            expectedWinner: 0),
    ]
}
