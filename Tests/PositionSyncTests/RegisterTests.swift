import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineSyncModel

/// What a register knows: each device's head, and what it learned of others second-hand, through
/// the contexts of the heads it holds.
@Suite("Registers", .timeLimit(.minutes(10)))
struct RegisterTests {
    static let key = RegisterKey(account: "me", timeline: "home")

    static func write(_ device: String, at milliseconds: UInt64, seen: [(String, UInt64)] = [], _ post: String) -> PositionRecord {
        PositionRecord(
            key: key, stamp: RegisterStamp(time: HybridTimestamp(milliseconds: milliseconds, counter: 0), device: device), sequence: 1,
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
        let next = tablet.localWrite(
            PositionSnapshot(postId: "p3"), key: Self.key,
            stamp: RegisterStamp(time: HybridTimestamp(milliseconds: 3_000, counter: 0), device: "tablet"),
            sequence: 1, savedAt: Date(timeIntervalSince1970: 3))
        #expect(next.context == VersionVector([("laptop", 1), ("phone", 1)]))
        // A replica that holds all three: the tablet's write saw both others, and alone is live.
        let all = Register([phone, laptop, next])
        #expect(all.liveHeads.map(\.device) == ["tablet"])
        #expect(all.seen == VersionVector([("laptop", 1), ("phone", 1), ("tablet", 1)]))
    }

    @Test("a replica keeps the heads of 64 devices in a register: one more is set aside; a device it holds, and its own, are always taken")
    func devicesBounded() {
        var state = ReplicaState()
        var clock = HybridClock(last: .zero)
        var estimates = ClockEstimates()
        let planted = (0..<100).map { Self.write("planted-\($0)", at: 1_000 + UInt64($0), "p666") }
        state.receive(planted, on: "phone", clock: &clock, estimates: &estimates, wall: 2_000, maxClockOffset: nil)
        #expect(state[Self.key].heads.count == SyncLimits.maximumDevicesPerRegister)
        #expect(state[Self.key].head(of: "planted-64") == nil)
        // A newer write of a device already held is taken; so is the replica's own.
        var newer = Self.write("planted-0", at: 3_000, "p1")
        newer.sequence = 2
        state.receive(
            [newer, Self.write("phone", at: 3_000, "p2")], on: "phone", clock: &clock, estimates: &estimates, wall: 3_000, maxClockOffset: nil)
        #expect(state[Self.key].head(of: "planted-0")?.sequence == 2)
        #expect(state[Self.key].head(of: "phone") != nil)
        // A new device's write that heard the phone's takes the place of the first stranger to
        // arrive; a new stranger's is still set aside.
        var laptop = Self.write("laptop", at: 4_000, "p3")
        laptop.context = VersionVector([("phone", 1)])
        state.receive(
            [laptop, Self.write("planted-500", at: 4_000, "p666")], on: "phone", clock: &clock, estimates: &estimates, wall: 4_000,
            maxClockOffset: nil)
        // 64 and the replica's own.
        #expect(state[Self.key].heads.count == SyncLimits.maximumDevicesPerRegister + 1)
        #expect(state[Self.key].head(of: "laptop")?.snapshot?.postId == "p3")
        #expect(state[Self.key].head(of: "planted-1") == nil)
        #expect(state[Self.key].head(of: "planted-0") != nil)
        #expect(state[Self.key].head(of: "planted-500") == nil)
    }
}

/// The epoch a local write carries on: the latest move back, in the order the device learned of them.
@Suite("A register's epoch", .timeLimit(.minutes(10)))
struct RegisterEpochTests {
    static let key = RegisterKey(account: "me", timeline: "home")

    static func stamp(_ device: String, _ milliseconds: UInt64) -> RegisterStamp {
        RegisterStamp(time: HybridTimestamp(milliseconds: milliseconds, counter: 0), device: device)
    }

    static func save(_ register: inout Register, _ device: String, at milliseconds: UInt64, sequence: UInt64, _ post: String, explicit: Bool = false)
        -> PositionRecord
    {
        let record = register.localWrite(
            PositionSnapshot(postId: post), key: key, stamp: stamp(device, milliseconds), sequence: sequence,
            savedAt: Date(timeIntervalSince1970: Double(milliseconds) / 1000), explicit: explicit)
        _ = register.insert(record)
        return record
    }

    @Test("a move back made after hearing of a laptop's, whose clock runs an hour fast, stays the phone's epoch")
    func ownMoveBackAfterAFastClocks() {
        let hour: UInt64 = 3_600_000
        // The laptop, an hour fast, moves back at 10:00 by its clock (9:00 in truth); the phone hears it.
        var laptop = Register()
        let laptopReset = Self.save(&laptop, "laptop", at: 10 * hour, sequence: 1, "p1", explicit: true)
        var phone = Register([laptopReset])
        #expect(Self.save(&phone, "phone", at: 9 * hour + 60_000, sequence: 1, "p3").epoch == laptopReset.stamp)
        // At 9:30 the phone moves back itself, then reads on: its reading follows its own move back.
        let phoneReset = Self.save(&phone, "phone", at: 9 * hour + 1_800_000, sequence: 2, "p0", explicit: true)
        #expect(phoneReset.epoch == phoneReset.stamp)
        #expect(Self.save(&phone, "phone", at: 9 * hour + 1_860_000, sequence: 3, "p2").epoch == phoneReset.stamp)
        // A later move back on the laptop that the phone had not heard of is later still.
        let laptopAgain = Self.save(&laptop, "laptop", at: 10 * hour + 2_400_000, sequence: 2, "p0", explicit: true)
        _ = phone.insert(laptopAgain)
        #expect(Self.save(&phone, "phone", at: 9 * hour + 2_460_000, sequence: 4, "p1").epoch == laptopAgain.stamp)
    }
}

/// The reading direction a register learns from its devices' saves.
@Suite("A register's reading direction", .timeLimit(.minutes(10)))
struct RegisterDirectionTests {
    static let key = RegisterKey(account: "me", timeline: "home")
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// The saves of one device on posts at `indexes` of a newest-first feed of 100 posts, a
    /// minute apart by creation time, each a write of the register.
    static func register(saving indexes: [Int], grownBy growth: [Int] = []) -> Register {
        var register = Register()
        for (number, index) in indexes.enumerated() {
            let count = 100 + growth.prefix(number + 1).reduce(0, +)
            let shift = count - 100
            // The post at `index` now is the post at `index - shift` of the first 100.
            let post = index - shift
            let snapshot = PositionSnapshot(
                postId: "p\(post)", postCreatedAt: start.addingTimeInterval(Double(-60 * post)), index: index, timelineCount: count)
            let stamp = RegisterStamp(time: HybridTimestamp(milliseconds: UInt64(1_000 * (number + 1)), counter: 0), device: "phone")
            register.insert(
                register.localWrite(snapshot, key: key, stamp: stamp, sequence: UInt64(number + 1), savedAt: start.addingTimeInterval(Double(number)))
            )
        }
        return register
    }

    @Test("a reader who saves a flick down and two nudges back up reads down: saves count the posts they moved, a jump one")
    func flickAndNudge() {
        // Down 4, up 1, up 1, three times: six saves up, three down, 6 posts down in all.
        let register = Self.register(saving: [10, 14, 13, 12, 16, 15, 14, 18, 17, 16])
        #expect(register.moves == PositionRecord.Moves(older: 12, newer: 6))
        #expect(register.learnedDirection == .older)
    }

    @Test("a reader catching up reads up, though a jump down to where they stopped came first")
    func catchingUp() {
        // A jump 60 posts down is one move; then three saves of two posts up each.
        let register = Self.register(saving: [0, 60, 58, 56, 54])
        #expect(register.moves == PositionRecord.Moves(older: 1, newer: 6))
        #expect(register.learnedDirection == .newer)
    }

    @Test("posts that arrived above between two saves are not counted as the reader's move")
    func growthAbove() {
        // Down 2 posts while 30 new ones arrived above: the index moved 32.
        let register = Self.register(saving: [10, 42], grownBy: [0, 30])
        #expect(register.moves == PositionRecord.Moves(older: 2, newer: 0))
    }
}

/// A device's own head published again with the clock bounds it learned after writing it.
@Suite("Clock bounds published again", .timeLimit(.minutes(10)))
struct ClocksRepublishedTests {
    static let key = RegisterTests.key

    static func write(
        _ device: String, _ sequence: UInt64, at milliseconds: UInt64, seen: [(String, UInt64)] = [],
        clocks: [(String, Int64)] = []
    ) -> PositionRecord {
        PositionRecord(
            key: key, stamp: RegisterStamp(time: HybridTimestamp(milliseconds: milliseconds, counter: 0), device: device), sequence: sequence,
            context: VersionVector(seen), savedAt: Date(timeIntervalSince1970: Double(milliseconds) / 1000),
            snapshot: PositionSnapshot(postId: "\(device)-\(sequence)"), epoch: .zero, progress: nil, clocks: ClockOffsets(clocks))
    }

    @Test("a live head concurrent with the device learned of is published again: same write, bounds raised, revision one higher")
    func republished() throws {
        let phone = Self.write("phone", 4, at: 1_000, clocks: [("tablet", -5_000)])
        let register = Register([phone, Self.write("laptop", 2, at: 3_601_000)])
        let again = try #require(register.clocksRepublished(of: "phone", learned: ClockOffsets([("laptop", 3_150_000), ("watch", 10)])))
        #expect(again.sequence == 4 && again.stamp == phone.stamp && again.context == phone.context && again.snapshot == phone.snapshot)
        // The laptop's bound is added; the tablet's is kept; the watch, with no head here, is left out.
        #expect(again.clocks == ClockOffsets([("laptop", 3_150_000), ("tablet", -5_000)]))
        #expect(again.clocksRevision == 1)
        // Published again, then again with a bound raised by more than the margin.
        var merged = register
        let inserted = merged.insert(again)
        #expect(inserted)
        let twice = try #require(merged.clocksRepublished(of: "phone", learned: ClockOffsets([("laptop", 3_160_000)])))
        #expect(twice.clocksRevision == 2 && twice.clocks["laptop"] == 3_160_000)
    }

    @Test(
        "nothing is published again for a bound raised by 2 s or less, a lower one, a head a later write saw, or no head",
        arguments: [
            ("raised by the margin", ClockOffsets([("laptop", 3_152_000)]), false),
            ("lower", ClockOffsets([("laptop", 1_000)]), false),
            ("seen by the laptop's later write", ClockOffsets([("laptop", 3_600_000)]), true),
        ])
    func notRepublished(_ name: String, _ learned: ClockOffsets, _ seen: Bool) {
        let phone = Self.write("phone", 4, at: 1_000, clocks: [("laptop", 3_150_000)])
        let register = Register([phone, Self.write("laptop", 2, at: 3_601_000, seen: seen ? [("phone", 4)] : [])])
        #expect(register.clocksRepublished(of: "phone", learned: learned) == nil, "\(name)")
        #expect(register.clocksRepublished(of: "tablet", learned: learned) == nil, "\(name)")
    }
}
