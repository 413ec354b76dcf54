import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineSyncModel

/// The one rule of where a restore starts (`RestoreStart`), its cases one by one.
@Suite("Where a restore starts", .timeLimit(.minutes(10)))
struct RestoreStartTests {
    static let key = RegisterKey(account: "me", timeline: "home")
    static let own = PositionSnapshot(postId: "own", deviceId: "phone")

    static func write(_ device: String, _ post: String?) -> PositionRecord {
        let stamp = RegisterStamp(time: HybridTimestamp(milliseconds: 5_000, counter: 0), device: device)
        return PositionRecord(
            key: key, stamp: stamp, sequence: 1, savedAt: Date(timeIntervalSince1970: 5),
            snapshot: post.map { PositionSnapshot(postId: $0) }, epoch: post == nil ? stamp : .zero, progress: nil)
    }

    @Test("another device's winning position is the start, unless the reader is on this device now (the live anchor)")
    func synced() {
        let start = RestoreStart.choose(own: Self.own, ownIsLive: false, winner: Self.write("laptop", "theirs"), device: "phone")
        #expect(start.snapshot?.postId == "theirs")
        #expect(start.source == .synced)
        #expect(start.device == "laptop")
        #expect(start.ownSnapshot?.postId == "own")
        let live = RestoreStart.choose(own: Self.own, ownIsLive: true, winner: Self.write("laptop", "theirs"), device: "phone")
        #expect(live.snapshot?.postId == "own")
        #expect(live.source == .liveAnchor)
    }

    @Test("a winning tombstone (a forgotten position) from another device is no start: the device's own snapshot is")
    func tombstone() {
        let start = RestoreStart.choose(own: Self.own, ownIsLive: false, winner: Self.write("laptop", nil), device: "phone")
        #expect(start.snapshot?.postId == "own")
        #expect(start.source == .savedSnapshot)
        let nothing = RestoreStart.choose(own: nil, ownIsLive: false, winner: Self.write("laptop", nil), device: "phone")
        #expect(nothing.snapshot == nil)
        #expect(nothing.source == .none)
    }

    @Test("this device's own winning write is its own snapshot, not a synced one")
    func ownWinner() {
        let start = RestoreStart.choose(own: Self.own, ownIsLive: false, winner: Self.write("phone", "own"), device: "phone")
        #expect(start.source == .savedSnapshot)
    }
}
