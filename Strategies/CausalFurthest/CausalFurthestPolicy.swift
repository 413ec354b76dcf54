import Foundation
import StrategyKit
import SyncModel
import TimelineCore

/// CausalFurthest: causality first, then the furthest read among writes that did not see each
/// other.
///
/// - One live head (a write that saw every other device's latest, as after any device switch,
///   a move back by hand or a re-read): it wins, wherever it is.
/// - Several live heads (concurrent writes: none saw the others):
///   1. a **glance** loses to reading: a write made less than `GlanceSeconds` after its device
///      was opened, having moved at most `GlancePosts` posts since (a stale device opened at its
///      old place and nudged before it heard from the others). When every one is a glance,
///      their times say nothing of where the reader read, and only the rules after time apply;
///   2. of the rest, each pair is ordered by their **true time** when the clock bounds the
///      writes carry tell it (`ClockOffsets.later`: what each writer had learned of the other's
///      clock from the deliveries it received): the later one wins. Where they cannot tell, a
///      reset (a tombstone, or an explicit move back) wins over a plain position, and between
///      positions the one furthest along in the reading `Direction` (learned from the
///      register's own moves unless set) wins; while no direction is known, or on an unordered
///      feed, the greater (hybrid timestamp, device id).
///   The winner is the head that wins against every other; should there be none (three or
///   more heads ordered in a circle), the furthest along.
///
/// A device an hour fast, or a day slow, cannot take the register: its stamps count only as
/// corrected by what the other devices learned of its clock, and without that, not at all.
public struct CausalFurthestPolicy: MergePolicy, DeclaredStrategy {
    public static let glanceSecondsParameter = Parameter<Double>(
        "GlanceSeconds", help: "A write made less than this many seconds after its device was opened, having moved little, is a glance.",
        default: 30, range: 0...3600)
    public static let glancePostsParameter = Parameter<Int>(
        "GlancePosts", help: "A glance moved at most this many posts since its device was opened.", default: 5, range: 0...1000)

    public static let type = StrategyType(
        name: "CausalFurthest", kind: .merge,
        summary: "A write that saw the others wins; among concurrent ones that were not glances, the later by the clocks' bounds, else the furthest read.",
        parameters: [DirectionChoice.parameter.declaration, glanceSecondsParameter.declaration, glancePostsParameter.declaration],
        mergeScenarios: CausalFurthestPolicy.scenarios
    ) { options in
        .merge(CausalFurthestPolicy(direction: options(DirectionChoice.parameter), glanceSeconds: options(glanceSecondsParameter),
                                    glancePosts: options(glancePostsParameter)))
    }

    public let direction: DirectionChoice
    public let glanceSeconds: Double
    public let glancePosts: Int

    public init(direction: DirectionChoice = DirectionChoice.parameter.defaultValue, glanceSeconds: Double = glanceSecondsParameter.defaultValue,
                glancePosts: Int = glancePostsParameter.defaultValue) {
        self.direction = direction
        self.glanceSeconds = glanceSeconds
        self.glancePosts = glancePosts
    }

    /// Whether `record` is a glance: written soon after its device opened, having moved little.
    public func isGlance(_ record: PositionRecord) -> Bool {
        guard let visit = record.visit else { return false }
        return visit.seconds < glanceSeconds && visit.posts <= glancePosts
    }

    public func resolve(_ register: Register) -> Resolution {
        guard !register.isEmpty else { return .empty }
        var live = register.liveHeads
        // Contexts that claim to have seen each other's future (a hostile peer) leave none
        // live: then every head competes.
        if live.isEmpty { live = register.heads }
        if live.count == 1 {
            return Resolution(winner: live[0], candidates: live, reason: register.heads.count == 1 ? "one device" : "one live head: it saw the others")
        }
        let reading = live.filter { !isGlance($0) }
        let pool = reading.isEmpty ? live : reading
        let glances = reading.isEmpty || reading.count == live.count ? "" : "; glances set aside"
        if pool.count == 1 {
            return Resolution(winner: pool[0], candidates: live, reason: "concurrent; the others were glances")
        }
        let direction = direction.direction(in: register)
        let ordered = pool.allSatisfy { $0.progress != nil } ? direction : nil
        // Only glances: the latest of them says nothing of where the reader read.
        let byTime = !reading.isEmpty
        var ways: Set<Way> = []
        let winner = pool.first { head in
            var used: Set<Way> = []
            for other in pool where other.device != head.device {
                let (winner, way) = Self.beats(head, other, direction: ordered, clocks: byTime)
                guard winner.device == head.device else { return false }
                used.insert(way)
            }
            ways = used
            return true
        }
        if let winner {
            let reason = Way.allCases.filter(ways.contains).map(\.rawValue).joined(separator: ", ")
            return Resolution(winner: winner, candidates: live, reason: "concurrent; " + reason + glances)
        }
        let furthest = pool.max { a, b in Self.beats(b, a, direction: ordered, clocks: false).0.device == b.device }!
        return Resolution(winner: furthest, candidates: live, reason: "concurrent; in no clear order, the furthest" + glances)
    }

    /// How one concurrent write won over another.
    enum Way: String, CaseIterable {
        case time = "the later by the clocks' bounds"
        case reset = "a reset"
        case furthest = "furthest"
        case stamp = "latest"
    }

    /// Which of two concurrent writes wins, and how: by true time where the clock bounds tell
    /// (unless `clocks` is false), then a reset over a position, then the furthest along in
    /// `direction`, then the greater stamp.
    static func beats(_ a: PositionRecord, _ b: PositionRecord, direction: ReadingDirection?, clocks: Bool = true) -> (PositionRecord, Way) {
        if clocks, let later = ClockOffsets.later(a, b) { return (later, .time) }
        if a.isReset != b.isReset { return (a.isReset ? a : b, .reset) }
        if let direction, let pa = a.progress, let pb = b.progress, pa != pb {
            return (direction.isFurther(pa, than: pb) ? a : b, .furthest)
        }
        return (a.stamp < b.stamp ? b : a, .stamp)
    }

    static let scenarios: [MergeScenario] = {
        let key = RegisterKey(account: "me", timeline: "home")
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        /// A write by `device`, its `sequence`-th, having seen `seen`; at post `post` created at
        /// `created` (older posts have smaller times).
        func write(_ device: String, _ sequence: UInt64, seen: [(String, UInt64)] = [], at millis: UInt64, _ post: String?, created: Double = 0,
                   explicit: Bool = false, visit: PositionRecord.Visit? = nil, moves: PositionRecord.Moves = .init(older: 10, newer: 1),
                   ordered: Bool = true, clocks: [(String, Int64)] = []) -> PositionRecord {
            let stamp = RegisterStamp(time: HybridTimestamp(milliseconds: millis, counter: 0), device: device)
            return PositionRecord(key: key, stamp: stamp, sequence: sequence, context: VersionVector(seen), savedAt: date,
                                  snapshot: post.map { PositionSnapshot(postId: $0) }, epoch: post == nil || explicit ? stamp : .zero,
                                  progress: ordered ? post.map { .init(createdAt: created, postId: $0) } : nil, visit: visit, moves: moves,
                                  clocks: ClockOffsets(clocks))
        }
        let hour: UInt64 = 3_600_000
        return [
            MergeScenario(name: "a device switch: the write that saw the other wins, even further back",
                          records: [write("phone", 4, at: 1_000, "p40", created: 400), write("laptop", 2, seen: [("phone", 4)], at: 2_000, "p45", created: 450)],
                          expectedWinner: 1, reason: "one live head: it saw the others"),
            MergeScenario(name: "concurrent writes: the furthest along in the learned direction (older) wins",
                          records: [write("phone", 4, at: 1_000, "p40", created: 400), write("laptop", 2, at: 2_000, "p45", created: 450)],
                          expectedWinner: 0, reason: "concurrent; furthest"),
            MergeScenario(name: "a laptop an hour fast does not take the register",
                          records: [write("laptop", 3, at: 1_000 + hour, "p50", created: 500), write("phone", 6, at: 2_000, "p30", created: 300)],
                          expectedWinner: 1, reason: "concurrent; furthest"),
            MergeScenario(name: "the phone learned the laptop is an hour fast: its reading a minute later wins, though further back",
                          records: [write("laptop", 3, at: 1_000 + hour, "p50", created: 500),
                                    write("phone", 6, at: 61_000, "p40", created: 400, clocks: [("laptop", 3_590_000)])],
                          expectedWinner: 1, reason: "concurrent; the later by the clocks' bounds"),
            MergeScenario(name: "the laptop knew the phone's clock: its reading two minutes after the phone's move back wins",
                          records: [write("laptop", 3, at: 120_000, "p50", created: 500, clocks: [("phone", -1_000)]),
                                    write("phone", 6, at: 1_000, "p10", created: 100, explicit: true)],
                          expectedWinner: 0, reason: "concurrent; the later by the clocks' bounds"),
            MergeScenario(name: "an explicit move back made before the other device read on, by the clocks' bounds, loses",
                          records: [write("laptop", 3, at: 1_000, "p10", created: 100, explicit: true),
                                    write("phone", 6, at: 300_000, "p50", created: 500, clocks: [("laptop", -2_000)])],
                          expectedWinner: 1, reason: "concurrent; the later by the clocks' bounds"),
            MergeScenario(name: "bounds too loose to tell: the furthest along",
                          records: [write("laptop", 3, at: 100_000, "p50", created: 500, clocks: [("phone", -90_000)]),
                                    write("phone", 6, at: 101_000, "p40", created: 400, clocks: [("laptop", -95_000)])],
                          expectedWinner: 1, reason: "concurrent; furthest"),
            MergeScenario(name: "a glance at a stale device loses to reading, even further along",
                          records: [write("phone", 6, at: 1_000, "p30", created: 300),
                                    write("laptop", 3, at: 2_000, "p20", created: 200, visit: .init(seconds: 6, posts: 1))],
                          expectedWinner: 0, reason: "concurrent; the others were glances"),
            MergeScenario(name: "a long visit that moved little is reading",
                          records: [write("phone", 6, at: 1_000, "p30", created: 300),
                                    write("laptop", 3, at: 2_000, "p20", created: 200, visit: .init(seconds: 240, posts: 1))],
                          expectedWinner: 1, reason: "concurrent; furthest"),
            MergeScenario(name: "a concurrent tombstone wins",
                          records: [write("phone", 6, at: 3_000, "p30", created: 300), write("ipad", 2, at: 1_000, nil)],
                          expectedWinner: 1, reason: "concurrent; a reset"),
            MergeScenario(name: "a position saved after seeing the tombstone comes back",
                          records: [write("ipad", 2, at: 1_000, nil), write("phone", 7, seen: [("ipad", 2)], at: 2_000, "p31", created: 310)],
                          expectedWinner: 1, reason: "one live head: it saw the others"),
            MergeScenario(name: "a concurrent explicit move back wins over reading further along",
                          records: [write("phone", 6, at: 3_000, "p10", created: 100), write("laptop", 3, at: 1_000, "p50", created: 500, explicit: true)],
                          expectedWinner: 1, reason: "concurrent; a reset"),
            MergeScenario(name: "three devices: the one that saw both others wins",
                          records: [write("phone", 5, at: 1_000, "p10", created: 100), write("laptop", 3, seen: [("phone", 5)], at: 2_000, "p12", created: 120),
                                    write("tablet", 2, seen: [("phone", 5), ("laptop", 3)], at: 3_000, "p15", created: 150)],
                          expectedWinner: 2, reason: "one live head: it saw the others"),
            MergeScenario(name: "catching up (moves mostly newer): the newer post is further along",
                          records: [write("phone", 4, at: 1_000, "p40", created: 400, moves: .init(older: 0, newer: 9)),
                                    write("laptop", 2, at: 2_000, "p45", created: 450, moves: .init(older: 1, newer: 2))],
                          expectedWinner: 1, reason: "concurrent; furthest"),
            MergeScenario(name: "no direction learned yet: the later of concurrent writes",
                          records: [write("phone", 1, at: 1_000, "p40", created: 400, moves: .none), write("laptop", 1, at: 2_000, "p45", created: 450, moves: .none)],
                          expectedWinner: 1, reason: "concurrent; latest"),
            MergeScenario(name: "the Direction parameter overrides what was learned",
                          records: [write("phone", 4, at: 1_000, "p40", created: 400), write("laptop", 2, at: 2_000, "p45", created: 450)],
                          expectedWinner: 1, reason: "concurrent; furthest", parameters: ["Direction": .init(value: .string("Newer"))]),
            MergeScenario(name: "an algorithmic feed has no progress: the later of concurrent writes",
                          records: [write("phone", 4, at: 1_000, "p40", ordered: false), write("laptop", 2, at: 2_000, "p45", ordered: false)],
                          expectedWinner: 1, reason: "concurrent; latest"),
        ]
    }()
}
