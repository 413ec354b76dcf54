import Foundation
import StrategyKit
import SyncModel
import TimelineCore

/// FurthestRead: the position furthest along the timeline wins, so a device that opens at an
/// old position never drags the others back. The order, a strict total order:
///
/// 1. the epoch: the latest reset the writer had seen. A reset is a tombstone (forgetting the
///    position) or an explicit move backwards (the reader scrolled back on purpose and the app
///    saved with `explicit`); its epoch is its own stamp. So a reset wins over every position
///    written without knowing it, and a position saved after seeing it wins over the reset;
/// 2. within an epoch, the progress: the post's creation time, then its id, in the reading
///    `Direction`: `Newer` (the default) for readers who catch up from where they stopped
///    towards the newest posts, as Mastodon's read markers do; `Older` for readers who read
///    down from the top into older posts. A reset and an unordered (algorithmic) feed's
///    positions have none and come first;
/// 3. the (hybrid timestamp, device id) order, as in LastWriterWins, for everything else.
///
/// An algorithmic feed's positions all lack progress, so for them this is LastWriterWins.
public struct FurthestReadPolicy: MergePolicy, DeclaredStrategy {
    /// Which way reading goes along the timeline.
    public enum Direction: String, ParameterChoice {
        /// Towards newer posts: catching up from where one stopped.
        case newer = "Newer"
        /// Towards older posts: reading down from the top.
        case older = "Older"
    }

    public static let directionParameter = Parameter<Direction>(
        "Direction", help: "Which way reading progresses: Newer (catching up to the newest posts) or Older (reading down from the top).",
        default: .newer)

    public static let type = StrategyType(
        name: "FurthestRead", kind: .merge,
        summary: "The position furthest along the timeline wins; only a newer explicit move back or a tombstone goes back.",
        parameters: [directionParameter.declaration],
        mergeScenarios: FurthestReadPolicy.scenarios,
        aliases: ["Merge"]
    ) { options in
        .merge(FurthestReadPolicy(direction: options(directionParameter)))
    }

    public let direction: Direction

    public init(direction: Direction = directionParameter.defaultValue) {
        self.direction = direction
    }

    public func precedes(_ lhs: PositionRecord, _ rhs: PositionRecord) -> Bool {
        if lhs.epoch != rhs.epoch { return lhs.epoch < rhs.epoch }
        switch (lhs.progress, rhs.progress) {
        case (nil, _?): return true
        case (_?, nil): return false
        case (let a?, let b?) where a != b: return direction == .newer ? a < b : b < a
        default: return lhs.stamp < rhs.stamp
        }
    }

    /// The epoch, then a byte saying whether there is progress, then the progress (its bytes
    /// complemented for `Older`), then the stamp.
    public func orderKey(of record: PositionRecord) -> OrderKey? {
        var key = OrderKey()
        key.append(record.epoch)
        if let progress = record.progress {
            key.append(UInt8(1))
            var part = OrderKey()
            part.append(progress.createdAt)
            part.append(progress.postId)
            if direction == .newer { key = OrderKey(bytes: key.bytes + part.bytes) } else { key.appendReversed(part) }
        } else {
            key.append(UInt8(0))
        }
        key.append(record.stamp)
        return key
    }

    static let scenarios: [MergeScenario] = {
        let key = RegisterKey(account: "me", timeline: "home")
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        func stamp(_ millis: UInt64, _ device: String) -> RegisterStamp {
            RegisterStamp(time: HybridTimestamp(milliseconds: millis, counter: 0), device: device)
        }
        func write(_ millis: UInt64, _ device: String, _ post: String?, created: Double? = nil, epoch: RegisterStamp = .zero) -> PositionRecord {
            PositionRecord(key: key, stamp: stamp(millis, device), savedAt: date, snapshot: post.map { PositionSnapshot(postId: $0) }, epoch: epoch,
                           progress: post.flatMap { post in created.map { .init(createdAt: $0, postId: post) } })
        }
        let reset = stamp(3_000, "ipad")
        return [
            MergeScenario(name: "a stale device does not drag the reader back",
                          records: [write(1_000, "phone", "p9", created: 900), write(2_000, "ipad", "p1", created: 100)], expectedWinner: 0),
            MergeScenario(name: "an explicit move back, newer, wins",
                          records: [write(1_000, "phone", "p9", created: 900), write(3_000, "ipad", "p1", created: 100, epoch: reset)],
                          expectedWinner: 1),
            MergeScenario(name: "a position written before the move back was seen loses to it",
                          records: [write(3_000, "ipad", "p1", created: 100, epoch: reset), write(4_000, "phone", "p9", created: 900)],
                          expectedWinner: 0),
            MergeScenario(name: "a tombstone wins over positions that did not know it",
                          records: [write(1_000, "phone", "p9", created: 900), write(3_000, "ipad", nil, epoch: reset)], expectedWinner: 1),
            MergeScenario(name: "a position saved after the tombstone was seen comes back",
                          records: [write(3_000, "ipad", nil, epoch: reset), write(5_000, "phone", "p2", created: 200, epoch: reset)],
                          expectedWinner: 1),
            MergeScenario(name: "the same post: the later write (its offset) wins",
                          records: [write(2_000, "phone", "p5", created: 500), write(1_000, "ipad", "p5", created: 500)], expectedWinner: 0),
            MergeScenario(name: "reading down from the top (Direction: Older): the older post is further along",
                          records: [write(1_000, "phone", "p9", created: 900), write(2_000, "ipad", "p1", created: 100)], expectedWinner: 1,
                          parameters: ["Direction": .init(value: .string("Older"))]),
            MergeScenario(name: "an algorithmic feed has no progress: the later write wins",
                          records: [write(1_000, "phone", "p9"), write(2_000, "ipad", "p1")], expectedWinner: 1),
        ]
    }()
}
