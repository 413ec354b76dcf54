import Foundation
import TimelineEngineCore
import TimelineEngineStrategyKit
import TimelineEngineSyncModel

/// LastWriterWins: of every device's latest write that no other has seen (the live heads), the
/// one with the greatest (hybrid timestamp, device id) wins, a tombstone like any other write.
/// A write made after seeing another wins over it, whatever the clocks say: usually its stamp
/// is later too, but a write stamped beyond `Sync.MaxClockOffset` does not drag the clock, and
/// the causal context keeps it from pinning the register. Between concurrent writes the faster
/// clock wins, and an hour-fast device takes the register.
public struct LastWriterWinsPolicy: MergePolicy, DeclaredStrategy {
    public static let type = StrategyType(
        name: "LastWriterWins", kind: .merge,
        summary: "The latest write wins, by hybrid logical clock, then device id; a tombstone like any write.",
        examples: LastWriterWinsPolicy.scenarios
    ) { _ in
        .merge(LastWriterWinsPolicy())
    }

    public init() {}

    public func resolve(_ register: Register) -> Resolution {
        guard let winner = register.liveHeads.max(by: { $0.stamp < $1.stamp }) else { return .empty }
        return Resolution(winner: winner, candidates: register.heads, reason: register.heads.count == 1 ? "one device" : "latest write")
    }

    static let scenarios: [MergeScenario] = {
        let key = RegisterKey(account: "me", timeline: "home")
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        func write(_ millis: UInt64, _ counter: UInt16, _ device: String, _ post: String?, created: Double = 0) -> PositionRecord {
            let stamp = RegisterStamp(time: HybridTimestamp(milliseconds: millis, counter: counter), device: device)
            return PositionRecord(
                key: key, stamp: stamp, savedAt: date, snapshot: post.map { PositionSnapshot(postId: $0) }, epoch: .zero,
                progress: post.map { .init(createdAt: created, postId: $0) })
        }
        func seeing(_ record: PositionRecord, _ seen: PositionRecord) -> PositionRecord {
            var seeing = record
            seeing.context.raise(seen.device, to: seen.sequence)
            return seeing
        }
        let fast = write(HybridTimestamp.maximumMilliseconds, UInt16.max, "fast", "p666")
        return [
            MergeScenario(
                name: "the later write wins, even further back in the timeline",
                records: [write(1_000, 0, "phone", "p9", created: 900), write(2_000, 0, "ipad", "p1", created: 100)], expectedWinner: 1,
                reason: "latest write"),
            MergeScenario(
                name: "the same millisecond: the counter decides",
                records: [write(1_000, 2, "phone", "p1"), write(1_000, 1, "ipad", "p2")], expectedWinner: 0),
            MergeScenario(
                name: "the same timestamp: the device id decides, the same way everywhere",
                records: [write(1_000, 0, "phone", "p1"), write(1_000, 0, "ipad", "p2")], expectedWinner: 0),
            MergeScenario(
                name: "a later tombstone wins", records: [write(1_000, 0, "phone", "p1"), write(3_000, 0, "ipad", nil)], expectedWinner: 1),
            MergeScenario(
                name: "a write that saw a wrong clock's write wins over it, though stamped before it",
                records: [fast, seeing(write(2_000, 0, "phone", "p90"), fast)], expectedWinner: 1),
            MergeScenario(
                name: "a device's own later write replaces its earlier one",
                records: [write(1_000, 0, "phone", "p1"), write(2_000, 0, "phone", "p2")], expectedWinner: 1, reason: "one device"),
        ]
    }()
}
