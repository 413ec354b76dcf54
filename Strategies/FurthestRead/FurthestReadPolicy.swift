import Foundation
import TimelineEngineCore
import TimelineEngineStrategyKit
import TimelineEngineSyncModel
import TimelineEngineValueTree

/// FurthestRead: of every device's latest write, the position furthest along the timeline
/// wins, so a device that opens at an old position never drags the others back. It orders the
/// heads, a strict total order:
///
/// 1. the epoch: the latest reset the writer had seen. A reset is a tombstone (forgetting the
///    position) or an explicit move backwards (the reader scrolled back on purpose and the app
///    saved with `explicit`); its epoch is its own stamp. So a reset wins over every position
///    written without knowing it, and a position saved after seeing it wins over the reset;
/// 2. within an epoch, the progress: the post's creation time, then its id, in the reading
///    `Direction`: `Learned` (the default) from the register's own moves, or `Older` (reading
///    down from the top) or `Newer` (catching up, as Mastodon's read markers do). A reset and
///    an unordered (algorithmic) feed's positions have none and come first; while the direction
///    is not known, progress is skipped;
/// 3. the (hybrid timestamp, device id) order, as in LastWriterWins, for everything else.
///
/// It ignores causality: a move back by hand that was not saved as `explicit` loses to an
/// older position further along. `CausalFurthest` compares progress only among concurrent
/// writes.
public struct FurthestReadPolicy: MergePolicy, DeclaredStrategy {
    public static let type = StrategyType(
        name: "FurthestRead", kind: .merge,
        summary: "The position furthest along the timeline wins; only a newer explicit move back or a tombstone goes back.",
        parameters: [DirectionChoice.parameter.declaration],
        examples: FurthestReadPolicy.scenarios
    ) { options in
        .merge(FurthestReadPolicy(direction: options(DirectionChoice.parameter)))
    }

    public let direction: DirectionChoice

    public init(direction: DirectionChoice = DirectionChoice.parameter.defaultValue) {
        self.direction = direction
    }

    public func resolve(_ register: Register) -> Resolution {
        let direction = self.direction.direction(in: register)
        guard let winner = register.heads.max(by: { Self.precedes($0, $1, direction: direction) }) else { return .empty }
        return Resolution(winner: winner, candidates: register.heads, reason: register.heads.count == 1 ? "one device" : "furthest read")
    }

    /// The order: epoch, then progress in `direction` (skipped when nil), then stamp.
    static func precedes(_ lhs: PositionRecord, _ rhs: PositionRecord, direction: ReadingDirection?) -> Bool {
        if lhs.epoch != rhs.epoch { return lhs.epoch < rhs.epoch }
        if let direction {
            switch (lhs.progress, rhs.progress) {
            case (nil, _?): return true
            case (_?, nil): return false
            case (let a?, let b?) where a != b: return direction.isFurther(b, than: a)
            default: break
            }
        }
        return lhs.stamp < rhs.stamp
    }

    static let scenarios: [MergeScenario] = {
        let key = RegisterKey(account: "me", timeline: "home")
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        func stamp(_ millis: UInt64, _ device: String) -> RegisterStamp {
            RegisterStamp(time: HybridTimestamp(milliseconds: millis, counter: 0), device: device)
        }
        func write(
            _ millis: UInt64, _ device: String, _ post: String?, created: Double? = nil, epoch: RegisterStamp = .zero,
            moves: PositionRecord.Moves = .none
        ) -> PositionRecord {
            PositionRecord(
                key: key, stamp: stamp(millis, device), savedAt: date, snapshot: post.map { PositionSnapshot(postId: $0) }, epoch: epoch,
                progress: post.flatMap { post in created.map { .init(createdAt: $0, postId: post) } }, moves: moves)
        }
        let reset = stamp(3_000, "ipad")
        let newer: Value.Dictionary = ["Direction": .init(value: .string("Newer"))]
        let older: Value.Dictionary = ["Direction": .init(value: .string("Older"))]
        return [
            MergeScenario(
                name: "a stale device does not drag the reader back",
                records: [write(1_000, "phone", "p9", created: 900), write(2_000, "ipad", "p1", created: 100)], expectedWinner: 0,
                reason: "furthest read", parameters: newer),
            MergeScenario(
                name: "an explicit move back, newer, wins",
                records: [write(1_000, "phone", "p9", created: 900), write(3_000, "ipad", "p1", created: 100, epoch: reset)],
                expectedWinner: 1, parameters: newer),
            MergeScenario(
                name: "a position written before the move back was seen loses to it",
                records: [write(3_000, "ipad", "p1", created: 100, epoch: reset), write(4_000, "phone", "p9", created: 900)],
                expectedWinner: 0, parameters: newer),
            MergeScenario(
                name: "a tombstone wins over positions that did not know it",
                records: [write(1_000, "phone", "p9", created: 900), write(3_000, "ipad", nil, epoch: reset)], expectedWinner: 1),
            MergeScenario(
                name: "a position saved after the tombstone was seen comes back",
                records: [write(3_000, "ipad", nil, epoch: reset), write(5_000, "phone", "p2", created: 200, epoch: reset)],
                expectedWinner: 1),
            MergeScenario(
                name: "the same post: the later write (its offset) wins",
                records: [write(2_000, "phone", "p5", created: 500), write(1_000, "ipad", "p5", created: 500)], expectedWinner: 0,
                parameters: newer),
            MergeScenario(
                name: "reading down from the top (Direction: Older): the older post is further along",
                records: [write(1_000, "phone", "p9", created: 900), write(2_000, "ipad", "p1", created: 100)], expectedWinner: 1,
                parameters: older),
            MergeScenario(
                name: "the learned direction: the reader's saves moved mostly towards older posts",
                records: [
                    write(1_000, "phone", "p1", created: 100, moves: .init(older: 12, newer: 1)),
                    write(2_000, "ipad", "p9", created: 900, moves: .init(older: 3, newer: 0)),
                ], expectedWinner: 0),
            MergeScenario(
                name: "the learned direction: the reader's saves moved mostly towards newer posts",
                records: [
                    write(2_000, "phone", "p1", created: 100, moves: .init(older: 1, newer: 9)),
                    write(1_000, "ipad", "p9", created: 900),
                ], expectedWinner: 1),
            MergeScenario(
                name: "no direction learned yet: the later write wins",
                records: [write(1_000, "phone", "p9", created: 900), write(2_000, "ipad", "p1", created: 100)], expectedWinner: 1),
            MergeScenario(
                name: "an algorithmic feed has no progress: the later write wins",
                records: [write(1_000, "phone", "p9"), write(2_000, "ipad", "p1")], expectedWinner: 1, parameters: newer),
        ]
    }()
}
