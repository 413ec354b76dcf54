import Foundation
import SyncModel
import Testing
import TimelineCore

/// What a register knows: each device's head, and what it learned of others second-hand, through
/// the contexts of the heads it holds.
@Suite("Registers", .timeLimit(.minutes(10)))
struct RegisterTests {
    static let key = RegisterKey(account: "me", timeline: "home")

    static func write(_ device: String, at milliseconds: UInt64, seen: [(String, UInt64)] = [], _ post: String) -> PositionRecord {
        PositionRecord(key: key, stamp: RegisterStamp(time: HybridTimestamp(milliseconds: milliseconds, counter: 0), device: device), sequence: 1,
                       context: VersionVector(seen), savedAt: Date(timeIntervalSince1970: Double(milliseconds) / 1000),
                       snapshot: PositionSnapshot(postId: post), epoch: .zero, progress: nil)
    }

    @Test("a device learns second-hand: a write it holds only through another head's context counts as seen, and its next write saw it")
    func secondHand() {
        let phone = Self.write("phone", at: 1_000, "p1")
        let laptop = Self.write("laptop", at: 2_000, seen: [("phone", 1)], "p2")
        // The tablet heard only from the laptop.
        let tablet = Register([laptop])
        #expect(tablet.seen == VersionVector([("laptop", 1), ("phone", 1)]))
        let next = tablet.localWrite(PositionSnapshot(postId: "p3"), key: Self.key,
                                     stamp: RegisterStamp(time: HybridTimestamp(milliseconds: 3_000, counter: 0), device: "tablet"),
                                     sequence: 1, savedAt: Date(timeIntervalSince1970: 3))
        #expect(next.context == VersionVector([("laptop", 1), ("phone", 1)]))
        // A replica that holds all three: the tablet's write saw both others, and alone is live.
        let all = Register([phone, laptop, next])
        #expect(all.liveHeads.map(\.device) == ["tablet"])
        #expect(all.seen == VersionVector([("laptop", 1), ("phone", 1), ("tablet", 1)]))
    }
}
