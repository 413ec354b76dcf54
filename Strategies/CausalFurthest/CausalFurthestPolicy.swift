import Foundation
import TimelineEngineCore
import TimelineEngineStrategyKit
import TimelineEngineSyncModel
import TimelineEngineValueTree

/// CausalFurthest: causality first, then the furthest read among writes that did not see each
/// other.
///
/// - One live head (a write that saw every other device's latest, as after any device switch,
///   a move back by hand or a re-read): it wins, wherever it is.
/// - Several live heads (concurrent writes: none saw the others):
///   1. a **glance** loses to reading: a write made less than `GlanceSeconds` after its device
///      was opened, having moved at most `GlancePosts` posts since (a stale device opened at its
///      old place and nudged before it heard from the others), or a write whose visit read no
///      post at all, however long (a device that restored the others' place and was put down:
///      the restore is a fact, not reading). When every one is a glance,
///      their times say nothing of where the reader read, and only the rules after time apply,
///      with two more: of two glances, one whose device had been open twice as long and 5 s or
///      more longer wins before the furthest (slow reading, not a look at a stale place), and
///      before the last, the stamps, one open a second or more longer;
///   2. of the rest, each pair is ordered by their **true time** when the clock bounds the
///      writes carry tell it (`ClockOffsets.later`: what each writer had learned of the other's
///      clock from the deliveries it received): the later one wins. Where they show a clock
///      wrong by five minutes or more (an hour fast, a day slow), the stamps corrected by the
///      bounds' estimate of it decide when they are more than two seconds apart
///      (`ClockOffsets.wrongClockLaterIsFirst`): an hour-fast laptop's write is not an hour later
///      than it was made, even where no delivery bounded it the other way. And where the bounds
///      show the clocks agreeing (`ClockOffsets.clocksAgree`), stamps more than a minute apart
///      were written in that order: the later wins. Where they cannot tell, a
///      reset (a tombstone, or an explicit move back) wins over a plain position, and between
///      positions the one furthest along in the reading `Direction` (learned from the
///      register's own moves unless set) wins; while no direction is known, or on an unordered
///      feed, the later by the stamps (corrected as above where a clock is known wrong), then
///      the greater device id.
///   The winner is the head that wins against every other; should there be none (three or
///   more heads ordered in a circle), the furthest along.
///
/// A device an hour fast, or a day slow, cannot take the register: its stamps count only as
/// corrected by what the other devices learned of its clock, and without that, not at all.
///
/// It asks the reader (`Resolution.offer`) only where two devices' reading truly diverged: the
/// winner is concurrent reading of a stretch of its own (more than `GlancePosts` posts in its
/// visit, counting the posts read; not a move back, nor reading after one made, by the clocks,
/// after the other's write: a move back is a decision), and another live head that is not a glance is further along while the clocks
/// show the winner came later, or stands elsewhere, having read a stretch too, while the clocks
/// cannot tell. Where the clocks cannot tell, a winner that read slowly (no glance, two posts or
/// more: three long posts in a minute) is reading of its own as much as a stretch is. Then the later reading and the furthest place are both where the reader may
/// want to be ("Continue from laptop?"), and no rule can tell which. Where one device did the reading, where a device was glanced at or
/// opened and left near its place, where the later write is a move back, or where the later
/// reading is also the furthest, it restores silently (`OfferAtDivergence` false: always).
public struct CausalFurthestPolicy: MergePolicy, DeclaredStrategy {
    public static let glanceSecondsParameter = Parameter<Double>(
        "GlanceSeconds", help: "A write made less than this many seconds after its device was opened, having moved little, is a glance.",
        default: 30, range: 0...3600)
    public static let glancePostsParameter = Parameter<Int>(
        "GlancePosts", help: "A glance moved at most this many posts since its device was opened.", default: 5, range: 0...1000)
    public static let offerAtDivergenceParameter = Parameter<Bool>(
        "OfferAtDivergence",
        help: "Ask the reader where to continue when two devices' reading diverged (the later reading is behind the furthest).",
        default: true)

    public static let type = StrategyType(
        name: "CausalFurthest", kind: .merge,
        summary:
            "A write that saw the others wins; among concurrent ones that were not glances, the later by the clocks' bounds, else the furthest read.",
        parameters: [
            DirectionChoice.parameter.declaration, glanceSecondsParameter.declaration, glancePostsParameter.declaration,
            offerAtDivergenceParameter.declaration,
        ],
        examples: CausalFurthestPolicy.scenarios
    ) { options in
        .merge(
            CausalFurthestPolicy(
                direction: options(DirectionChoice.parameter), glanceSeconds: options(glanceSecondsParameter),
                glancePosts: options(glancePostsParameter), offerAtDivergence: options(offerAtDivergenceParameter)))
    }

    public let direction: DirectionChoice
    public let glanceSeconds: Double
    public let glancePosts: Int
    public let offerAtDivergence: Bool

    public init(
        direction: DirectionChoice = DirectionChoice.parameter.defaultValue, glanceSeconds: Double = glanceSecondsParameter.defaultValue,
        glancePosts: Int = glancePostsParameter.defaultValue, offerAtDivergence: Bool = offerAtDivergenceParameter.defaultValue
    ) {
        self.direction = direction
        self.glanceSeconds = glanceSeconds
        self.glancePosts = glancePosts
        self.offerAtDivergence = offerAtDivergence
    }

    /// Whether `record` is a glance: written soon after its device opened, having moved little,
    /// or having read no post in its visit.
    public func isGlance(_ record: PositionRecord) -> Bool {
        guard let visit = record.visit else { return false }
        return visit.posts == 0 || (visit.seconds < glanceSeconds && visit.posts <= glancePosts)
    }

    public func resolve(_ register: Register) -> Resolution {
        guard let decision = decide(register) else { return .empty }
        let heads = register.heads
        let candidates = Self.liveHeads(of: decision, in: heads)
        let winner = heads[decision.winner]
        var resolution = Resolution(winner: winner, candidates: candidates, reason: decision.reason(heads: heads.count))
        if offerAtDivergence, let furthest = divergence(decision, winner: winner, candidates: candidates, register: register) {
            resolution.offer = [winner, furthest]
        }
        return resolution
    }

    /// Whether `record` read a stretch of its own: not a reset (a move back is a decision), and
    /// moved more than `glancePosts` posts in its visit. A device that opened and stayed near its
    /// place, however long, did not read elsewhere; a write that does not say (the command
    /// line's, a version-1 write) is no evidence of it.
    func hasRead(_ record: PositionRecord) -> Bool {
        !record.isReset && (record.visit.map { $0.posts > glancePosts } ?? false)
    }

    /// Whether `record` read, slowly: not a reset, no glance, and two posts or more read in its
    /// visit (three long posts in a minute). Where the clocks cannot tell which of two writes
    /// came first, such a visit is reading of its own as much as a stretch is: a winner that
    /// read so, further along than a stretch read elsewhere, is asked about. Where the clocks
    /// show it came later, it is where the reader is, and only a stretch asks.
    func hasReadSlowly(_ record: PositionRecord) -> Bool {
        !record.isReset && !isGlance(record) && (record.visit.map { $0.posts >= 2 } ?? false)
    }

    /// Where the reading diverged: the winner read a stretch of its own, and another live head
    /// that is not a glance stands at another place: further along while the clocks show the
    /// winner came later, or anywhere, having read a stretch of its own too, while the clocks
    /// cannot tell which came first; unless the winner's reading follows a move back made on its
    /// own device after the other's write, by the clocks. Of those heads,
    /// the one to offer beside the winner: the furthest, else the latest by its stamp.
    ///
    /// `note`, when given, hears why each other head is not offered, or why none could be.
    func divergence(
        _ decision: Decision, winner: PositionRecord, candidates: [PositionRecord], register: Register,
        note: ((PositionRecord?, String) -> Void)? = nil
    ) -> PositionRecord? {
        guard decision.kind == .concurrent else {
            switch decision.kind {
            case .only: note?(nil, "no divergence: one live head, which saw every other")
            case .glances: note?(nil, "no divergence: the other live heads were glances")
            case .circle, .concurrent: note?(nil, "no divergence: the heads stand in no clear order")
            }
            return nil
        }
        let winnerReadStretch = hasRead(winner)
        guard winnerReadStretch || hasReadSlowly(winner), let reached = winner.progress else {
            note?(
                nil,
                "no divergence: the winner did not read a stretch of its own (\(winner.visit.map { "\($0.posts) posts in its visit" } ?? "no visit"))"
            )
            return nil
        }
        guard let direction = direction.direction(in: register) else {
            note?(nil, "no divergence: no reading direction to tell further from behind")
            return nil
        }
        var offered: PositionRecord?
        for head in candidates where head.device != winner.device {
            guard !head.isReset else {
                note?(head, "a reset, a decision")
                continue
            }
            guard !isGlance(head) else {
                note?(head, "a glance")
                continue
            }
            guard let progress = head.progress, progress.postId != reached.postId else {
                note?(head, "on the winner's post, or with no place along the feed")
                continue
            }
            // Reading that follows a move back made on the winner's device after the other's
            // write (so unseen by it; its epoch differs) is where the reader decided to go: no
            // divergence. A move back made before the other's write, which the other did not
            // hear of, decides nothing about the reading the other did after it. The order is
            // the clocks' (their bounds, else a wrong clock's corrected lead), not the stamps':
            // a fast clock stamps an earlier move back later.
            if winner.epoch != head.epoch, winner.epoch.device == winner.device,
                ClockOffsets.estimatedLaterIsFirst(winner, head, times: (winner.epoch.time, head.stamp.time))
            {
                note?(head, "the winner's reading follows a move back made after this write")
                continue
            }
            let (_, way) = Self.beats(winner, head, direction: direction)
            switch way {
            case .time where ClockOffsets.laterIsFirst(winner, head) == nil:
                // Ordered by an estimate of a wrong clock's lead, not by bounds that decide it: a
                // late delivery leaves the estimate minutes off, so which came first is not
                // known: the other head is offered where it is further along, or read a stretch
                // of its own too.
                guard direction.isFurther(progress, than: reached) || hasRead(head) else {
                    note?(head, "behind the winner, read no stretch, and only an estimate of a wrong clock orders them")
                    continue
                }
            case .time where !winnerReadStretch, .minuteLater where !winnerReadStretch:
                // The winner came later, by the clocks, and read slowly, no stretch: the later
                // reading is where the reader is (a device opened and left near its place).
                note?(head, "the winner came later (\(way.rawValue)) and read no stretch of its own")
                continue
            case .time, .minuteLater:
                // The winner came later: a divergence only if it is behind the place the other
                // reached, whatever the other's last visit moved.
                guard direction.isFurther(progress, than: reached) else {
                    note?(head, "the winner came later (\(way.rawValue)) and is further along")
                    continue
                }
            case .reset, .longerGlance:
                note?(head, "the winner won by \(way.rawValue)")
                continue
            case .furthest, .stamp:
                // Which came first is not known: both must have read a stretch of their own.
                guard hasRead(head) else {
                    note?(head, "which came first is not known, and it read no stretch of its own")
                    continue
                }
            }
            if let current = offered?.progress {
                let further = direction.isFurther(progress, than: current)
                guard further || (!direction.isFurther(current, than: progress) && head.stamp > offered!.stamp) else {
                    note?(head, "another head, further along or later, is offered instead")
                    continue
                }
            }
            offered = head
        }
        return offered
    }

    /// The heads a decision found live (every head past the 64 its bits hold).
    static func liveHeads(of decision: Decision, in heads: [PositionRecord]) -> [PositionRecord] {
        (0..<heads.count).filter { decision.live & (1 << UInt64($0)) != 0 || heads.count > 64 }.map { heads[$0] }
    }

    /// Why each other live head was or was not offered (`divergence`), or why none could be.
    public func offerNotes(_ register: Register, on device: String?) -> [String] {
        guard let decision = decide(register) else { return [] }
        let heads = register.heads
        let candidates = Self.liveHeads(of: decision, in: heads)
        let winner = heads[decision.winner]
        guard offerAtDivergence else { return ["never asks (OfferAtDivergence: false)"] }
        var notes: [String] = []
        let offered = divergence(decision, winner: winner, candidates: candidates, register: register) { head, why in
            notes.append(head.map { "\($0.device)#\($0.sequence): not offered: \(why)" } ?? why)
        }
        if let offered { notes.append("\(offered.device)#\(offered.sequence): offered beside the winner: the reading diverged") }
        return notes
    }

    /// The value alone: what a merge of millions of registers asks for, without building the
    /// candidates and the reason.
    public func value(of register: Register) -> PositionRecord? {
        decide(register).map { register.heads[$0.winner] }
    }

    /// How a resolution went: the winner's index among the heads, the live heads (a bit per
    /// head, for the first 64), and the way it won.
    struct Decision {
        enum Kind {
            case only, glances, concurrent, circle
        }

        var winner: Int
        var live: UInt64
        var kind: Kind
        /// The ways the winner won (`Way` bits).
        var ways: UInt8 = 0
        var glancesAside = false

        func reason(heads: Int) -> String {
            let aside = glancesAside ? "; glances set aside" : ""
            switch kind {
            case .only: return heads == 1 ? "one device" : "one live head: it saw the others"
            case .glances: return "concurrent; the others were glances"
            case .concurrent: return "concurrent; " + Way.allCases.filter { ways & $0.bit != 0 }.map(\.rawValue).joined(separator: ", ") + aside
            case .circle: return "concurrent; in no clear order, the furthest" + aside
            }
        }
    }

    /// The one algorithm of this policy, over the heads' indices: no head is copied, and for up
    /// to 64 heads nothing is allocated.
    func decide(_ register: Register) -> Decision? {
        let count = register.heads.count
        guard count > 0 else { return nil }
        if count == 1 { return Decision(winner: 0, live: 1, kind: .only) }
        let learned = direction.direction(in: register)
        return register.heads.withUnsafeBufferPointer { heads in decide(heads, learned: learned) }
    }

    private func decide(_ heads: UnsafeBufferPointer<PositionRecord>, learned: ReadingDirection?) -> Decision {
        let count = heads.count
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: count * 2) { buffer in
            // Live heads: no other head's context covers them. Contexts that claim to have seen
            // each other's future (a hostile peer) leave none live: then every head competes.
            var liveCount = 0
            for index in 0..<count {
                var seen = false
                for other in 0..<count where other != index && heads[other].hasSeen(heads[index]) {
                    seen = true
                    break
                }
                if !seen {
                    buffer[liveCount] = index
                    liveCount += 1
                }
            }
            if liveCount == 0 {
                for index in 0..<count { buffer[index] = index }
                liveCount = count
            }
            var liveBits: UInt64 = 0
            for position in 0..<liveCount where buffer[position] < 64 { liveBits |= 1 << UInt64(buffer[position]) }
            if liveCount == 1 { return Decision(winner: buffer[0], live: liveBits, kind: .only) }
            // The pool: the live heads that are reading, after them in the buffer.
            var poolCount = 0
            for position in 0..<liveCount where !isGlance(heads[buffer[position]]) {
                buffer[count + poolCount] = buffer[position]
                poolCount += 1
            }
            let byTime = poolCount > 0
            let glancesAside = poolCount > 0 && poolCount < liveCount
            if poolCount == 0 {
                for position in 0..<liveCount { buffer[count + position] = buffer[position] }
                poolCount = liveCount
            } else if poolCount == 1 {
                return Decision(winner: buffer[count], live: liveBits, kind: .glances)
            }
            var ordered: ReadingDirection?
            if let learned {
                ordered = learned
                for position in 0..<poolCount where heads[buffer[count + position]].progress == nil {
                    ordered = nil
                    break
                }
            }
            // The winner wins against every other; only glances: their times say nothing.
            candidates: for position in 0..<poolCount {
                let index = buffer[count + position]
                var ways: UInt8 = 0
                for other in 0..<poolCount where other != position {
                    let (aWins, way) = Self.beats(heads[index], heads[buffer[count + other]], direction: ordered, clocks: byTime, glances: !byTime)
                    guard aWins else { continue candidates }
                    ways |= way.bit
                }
                return Decision(winner: index, live: liveBits, kind: .concurrent, ways: ways, glancesAside: glancesAside)
            }
            var best = buffer[count]
            for position in 1..<poolCount {
                let index = buffer[count + position]
                if !Self.beats(heads[best], heads[index], direction: ordered, clocks: false).0 { best = index }
            }
            return Decision(winner: best, live: liveBits, kind: .circle, glancesAside: glancesAside)
        }
    }

    /// How one concurrent write won over another.
    enum Way: String, CaseIterable {
        case time = "the later by the clocks' bounds"
        case reset = "a reset"
        case minuteLater = "a minute later by clocks that agree"
        case furthest = "furthest"
        case longerGlance = "the longer glance"
        case stamp = "latest"

        var bit: UInt8 {
            switch self {
            case .time: 1
            case .reset: 2
            case .furthest: 4
            case .stamp: 8
            case .minuteLater: 16
            case .longerGlance: 32
            }
        }
    }

    /// Whether `a` wins over `b`, a concurrent write, and how: by true time where the clock
    /// bounds tell (unless `clocks` is false), then a reset over a position, then, between two
    /// `glances`, the one whose device had been open clearly longer (`clearlyLonger`), then the
    /// furthest along in `direction`, then, between two glances, the one whose device had been
    /// open a second or more longer, then the greater stamp.
    static func beats(
        _ a: PositionRecord, _ b: PositionRecord, direction: ReadingDirection?, clocks: Bool = true,
        glances: Bool = false
    ) -> (Bool, Way) {
        if clocks, let later = ClockOffsets.laterIsFirst(a, b) ?? ClockOffsets.wrongClockLaterIsFirst(a, b) { return (later, .time) }
        if a.isReset != b.isReset { return (a.isReset, .reset) }
        if clocks, ClockOffsets.clocksAgree(a, b) {
            let gap = Int64(clamping: a.stamp.time.milliseconds) &- Int64(clamping: b.stamp.time.milliseconds)
            if gap.magnitude > ClockOffsets.orderedStampsMilliseconds.magnitude { return (gap > 0, .minuteLater) }
        }
        // Of two glances, one whose device was open twice as long as the other's and 5 s or more
        // longer was read there, slowly; the other was a look at a stale place, however far
        // along that place is.
        if glances, let va = a.visit, let vb = b.visit, let longer = clearlyLonger(va, vb) { return (longer, .longerGlance) }
        if let direction, let pa = a.progress, let pb = b.progress, pa != pb {
            return (direction.isFurther(pa, than: pb), .furthest)
        }
        // Of two glances, the longer was likelier reading, slowly, than a look at a stale place.
        if glances, let va = a.visit, let vb = b.visit, abs(va.seconds - vb.seconds) >= 1 { return (va.seconds > vb.seconds, .longerGlance) }
        return (ClockOffsets.estimatedLaterIsFirst(a, b), .stamp)
    }

    /// Whether the visit `a` was clearly longer than `b` (true), clearly shorter (false), or
    /// neither (nil): twice as long and 5 seconds or more longer.
    static func clearlyLonger(_ a: PositionRecord.Visit, _ b: PositionRecord.Visit) -> Bool? {
        let (long, short) = a.seconds >= b.seconds ? (a.seconds, b.seconds) : (b.seconds, a.seconds)
        guard long >= 2 * short, long - short >= 5 else { return nil }
        return a.seconds > b.seconds
    }

    static let scenarios: [MergeScenario] = {
        let hour: UInt64 = 3_600_000
        /// A visit that read a stretch: two minutes, twelve posts.
        let reading = PositionRecord.Visit(seconds: 120, posts: 12)
        return [
            MergeScenario(
                name: "a device switch: the write that saw the other wins, even further back",
                records: [
                    .example("phone", 4, at: 1_000, "p40", created: 400), .example("laptop", 2, seen: [("phone", 4)], at: 2_000, "p45", created: 450),
                ],
                expectedWinner: 1, reason: "one live head: it saw the others"),
            MergeScenario(
                name: "concurrent writes: the furthest along in the learned direction (older) wins",
                records: [.example("phone", 4, at: 1_000, "p40", created: 400), .example("laptop", 2, at: 2_000, "p45", created: 450)],
                expectedWinner: 0, reason: "concurrent; furthest"),
            MergeScenario(
                name: "a laptop an hour fast does not take the register",
                records: [.example("laptop", 3, at: 1_000 + hour, "p50", created: 500), .example("phone", 6, at: 2_000, "p30", created: 300)],
                expectedWinner: 1, reason: "concurrent; furthest"),
            MergeScenario(
                name: "the phone learned the laptop is an hour fast: its reading a minute later wins, though further back",
                records: [
                    .example("laptop", 3, at: 1_000 + hour, "p50", created: 500),
                    .example("phone", 6, at: 61_000, "p40", created: 400, clocks: [("laptop", 3_590_000)]),
                ],
                expectedWinner: 1, reason: "concurrent; the later by the clocks' bounds"),
            MergeScenario(
                name:
                    "each learned the other's clock, the phone an hour behind the laptop: the phone's reading four minutes later wins, though behind: it asks",
                records: [
                    .example(
                        "laptop", 3, at: 1_000 + hour, "p50", created: 500, visit: reading, moves: .init(older: 1, newer: 9),
                        clocks: [("phone", -3_613_000)]),
                    .example(
                        "phone", 6, at: 245_000, "p40", created: 400, visit: reading, moves: .init(older: 1, newer: 9),
                        clocks: [("laptop", 3_590_000)]),
                ],
                expectedWinner: 1, reason: "concurrent; the later by the clocks' bounds", offer: [1, 0]),
            MergeScenario(
                name: "an algorithmic feed and a laptop an hour fast by what both learned: the phone's later write, not the laptop's stamp",
                records: [
                    .example("laptop", 3, at: 1_000 + hour, "p50", ordered: false, clocks: [("phone", -3_601_500)]),
                    .example("phone", 6, at: 1_000, "p40", ordered: false, clocks: [("laptop", 3_599_000)]),
                ],
                expectedWinner: 1, reason: "concurrent; latest"),
            MergeScenario(
                name:
                    "a bound that says only that the phone is at most an hour behind (a late delivery says as much) shows no wrong clock: both read a stretch, it asks",
                records: [
                    .example(
                        "laptop", 3, at: 1_000 + hour, "p50", created: 500, visit: reading, moves: .init(older: 1, newer: 9),
                        clocks: [("phone", -3_613_000)]),
                    .example("phone", 6, at: 245_000, "p40", created: 400, visit: reading, moves: .init(older: 1, newer: 9)),
                ],
                expectedWinner: 0, reason: "concurrent; furthest", offer: [0, 1]),
            MergeScenario(
                name: "the laptop knew the phone's clock: its reading two minutes after the phone's move back wins",
                records: [
                    .example("laptop", 3, at: 120_000, "p50", created: 500, clocks: [("phone", -1_000)]),
                    .example("phone", 6, at: 1_000, "p10", created: 100, explicit: true),
                ],
                expectedWinner: 0, reason: "concurrent; the later by the clocks' bounds"),
            MergeScenario(
                name: "an explicit move back made before the other device read on, by the clocks' bounds, loses",
                records: [
                    .example("laptop", 3, at: 1_000, "p10", created: 100, explicit: true),
                    .example("phone", 6, at: 300_000, "p50", created: 500, clocks: [("laptop", -2_000)]),
                ],
                expectedWinner: 1, reason: "concurrent; the later by the clocks' bounds"),
            MergeScenario(
                name:
                    "reading on from a move back made after the other device wrote (by the clocks, the laptop an hour fast): the reader decided, it restores silently",
                records: [
                    .example("laptop", 3, at: 1_000 + hour, "p30", created: 300, visit: reading),
                    .example(
                        "phone", 6, at: 300_000, "p40", created: 400, visit: reading, clocks: [("laptop", 3_590_000)],
                        epoch: ("phone", 200_000)),
                ],
                expectedWinner: 1, reason: "concurrent; the later by the clocks' bounds"),
            MergeScenario(
                name:
                    "reading on from a move back made before the other device read a stretch, which it never heard of: the move back decides nothing, it asks",
                records: [
                    .example("laptop", 3, at: 200_000 + hour, "p30", created: 300, visit: reading),
                    .example(
                        "phone", 6, at: 400_000, "p40", created: 400, visit: reading, clocks: [("laptop", 3_590_000)],
                        epoch: ("phone", 1_000)),
                ],
                expectedWinner: 1, reason: "concurrent; the later by the clocks' bounds", offer: [1, 0]),
            MergeScenario(
                name: "concurrent writes a minute and a half apart, by clocks that agree: the later wins, though behind: it asks",
                records: [
                    .example("phone", 6, at: 1_000, "p30", created: 300, visit: reading, clocks: [("laptop", -1_000)]),
                    .example("laptop", 3, at: 91_000, "p40", created: 400, visit: reading),
                ],
                expectedWinner: 1, reason: "concurrent; a minute later by clocks that agree", offer: [1, 0]),
            MergeScenario(
                name: "both read a stretch of their own, and the clocks cannot tell which came first: it asks",
                records: [
                    .example("laptop", 3, at: 100_000, "p50", created: 500, visit: reading, clocks: [("phone", -90_000)]),
                    .example("phone", 6, at: 101_000, "p40", created: 400, visit: reading, clocks: [("laptop", -95_000)]),
                ],
                expectedWinner: 1, reason: "concurrent; furthest", offer: [1, 0]),
            MergeScenario(
                name:
                    "a device that restored and was put down a minute later with no post read is a glance: the reading done elsewhere meanwhile wins, though behind",
                records: [
                    .example("laptop", 3, at: 100_000, "p30", created: 300, visit: .init(seconds: 61, posts: 0)),
                    .example("phone", 6, at: 2_000_000, "p40", created: 400, visit: reading),
                ],
                expectedWinner: 1, reason: "concurrent; the others were glances"),
            MergeScenario(
                name:
                    "a slow reader, three long posts in a minute, is the furthest while the clocks cannot tell, and a stretch was read elsewhere: it asks",
                records: [
                    .example("laptop", 3, at: 100_000, "p50", created: 500, visit: reading, clocks: [("phone", -90_000)]),
                    .example(
                        "phone", 6, at: 101_000, "p40", created: 400, visit: .init(seconds: 67, posts: 3), clocks: [("laptop", -95_000)]),
                ],
                expectedWinner: 1, reason: "concurrent; furthest", offer: [1, 0]),
            MergeScenario(
                name: "the furthest, while the clocks cannot tell, was opened and left on one post: it restores silently",
                records: [
                    .example("laptop", 3, at: 100_000, "p50", created: 500, visit: reading, clocks: [("phone", -90_000)]),
                    .example(
                        "phone", 6, at: 101_000, "p40", created: 400, visit: .init(seconds: 240, posts: 1), clocks: [("laptop", -95_000)]),
                ],
                expectedWinner: 1, reason: "concurrent; furthest"),
            MergeScenario(
                name: "the later reading is also the furthest: it restores silently",
                records: [
                    .example("phone", 6, at: 1_000, "p40", created: 400, visit: reading, clocks: [("laptop", -1_000)]),
                    .example("laptop", 3, at: 91_000, "p30", created: 300, visit: reading),
                ],
                expectedWinner: 1, reason: "concurrent; a minute later by clocks that agree"),
            MergeScenario(
                name: "the later device opened and stayed near its place: no divergence, it restores silently",
                records: [
                    .example("phone", 6, at: 1_000, "p30", created: 300, visit: reading, clocks: [("laptop", -1_000)]),
                    .example("laptop", 3, at: 91_000, "p40", created: 400, visit: .init(seconds: 240, posts: 2)),
                ],
                expectedWinner: 1, reason: "concurrent; a minute later by clocks that agree"),
            MergeScenario(
                name: "OfferAtDivergence false: it never asks",
                records: [
                    .example("phone", 6, at: 1_000, "p30", created: 300, visit: reading, clocks: [("laptop", -1_000)]),
                    .example("laptop", 3, at: 91_000, "p40", created: 400, visit: reading),
                ],
                expectedWinner: 1, reason: "concurrent; a minute later by clocks that agree",
                parameters: ["OfferAtDivergence": .init(value: .bool(false))]),
            MergeScenario(
                name: "concurrent writes under a minute apart, by clocks that agree: the furthest along",
                records: [
                    .example("phone", 6, at: 1_000, "p30", created: 300, clocks: [("laptop", -1_000)]),
                    .example("laptop", 3, at: 50_000, "p40", created: 400),
                ],
                expectedWinner: 0, reason: "concurrent; furthest"),
            MergeScenario(
                name: "bounds too loose to tell: the furthest along",
                records: [
                    .example("laptop", 3, at: 100_000, "p50", created: 500, clocks: [("phone", -90_000)]),
                    .example("phone", 6, at: 101_000, "p40", created: 400, clocks: [("laptop", -95_000)]),
                ],
                expectedWinner: 1, reason: "concurrent; furthest"),
            MergeScenario(
                name: "a glance at a stale device loses to reading, even further along",
                records: [
                    .example("phone", 6, at: 1_000, "p30", created: 300),
                    .example("laptop", 3, at: 2_000, "p20", created: 200, visit: .init(seconds: 6, posts: 1)),
                ],
                expectedWinner: 0, reason: "concurrent; the others were glances"),
            MergeScenario(
                name: "only glances, on an unordered feed: the longer glance, not the later one",
                records: [
                    .example("laptop", 3, at: 1_000, "p20", visit: .init(seconds: 25, posts: 2), ordered: false),
                    .example("phone", 6, at: 1_200_000, "p30", visit: .init(seconds: 8, posts: 0), ordered: false),
                ],
                expectedWinner: 0, reason: "concurrent; the longer glance"),
            MergeScenario(
                name: "only glances: one open four times longer wins over one further along",
                records: [
                    .example("laptop", 3, at: 1_000, "p30", created: 300, visit: .init(seconds: 24, posts: 3)),
                    .example("phone", 6, at: 2_000, "p20", created: 200, visit: .init(seconds: 6, posts: 1)),
                ],
                expectedWinner: 0, reason: "concurrent; the longer glance"),
            MergeScenario(
                name: "only glances open alike: the furthest along",
                records: [
                    .example("laptop", 3, at: 1_000, "p30", created: 300, visit: .init(seconds: 12, posts: 3)),
                    .example("phone", 6, at: 2_000, "p20", created: 200, visit: .init(seconds: 8, posts: 1)),
                ],
                expectedWinner: 1, reason: "concurrent; furthest"),
            MergeScenario(
                name: "only glances within a second of each other: the later",
                records: [
                    .example("laptop", 3, at: 1_000, "p20", visit: .init(seconds: 8.5, posts: 2), ordered: false),
                    .example("phone", 6, at: 1_200_000, "p30", visit: .init(seconds: 8, posts: 0), ordered: false),
                ],
                expectedWinner: 1, reason: "concurrent; latest"),
            MergeScenario(
                name: "the glance's bounds: moved exactly GlancePosts posts, less than GlanceSeconds after opening, is a glance",
                records: [
                    .example("phone", 6, at: 1_000, "p30", created: 300),
                    .example("laptop", 3, at: 2_000, "p20", created: 200, visit: .init(seconds: 29.9, posts: 5)),
                ],
                expectedWinner: 0, reason: "concurrent; the others were glances"),
            MergeScenario(
                name: "the glance's bounds: one post more than GlancePosts is reading",
                records: [
                    .example("phone", 6, at: 1_000, "p30", created: 300),
                    .example("laptop", 3, at: 2_000, "p20", created: 200, visit: .init(seconds: 29.9, posts: 6)),
                ],
                expectedWinner: 1, reason: "concurrent; furthest"),
            MergeScenario(
                name: "the glance's bounds: exactly GlanceSeconds after opening is reading",
                records: [
                    .example("phone", 6, at: 1_000, "p30", created: 300),
                    .example("laptop", 3, at: 2_000, "p20", created: 200, visit: .init(seconds: 30, posts: 1)),
                ],
                expectedWinner: 1, reason: "concurrent; furthest"),
            MergeScenario(
                name: "a long visit that moved little is reading",
                records: [
                    .example("phone", 6, at: 1_000, "p30", created: 300),
                    .example("laptop", 3, at: 2_000, "p20", created: 200, visit: .init(seconds: 240, posts: 1)),
                ],
                expectedWinner: 1, reason: "concurrent; furthest"),
            MergeScenario(
                name: "a concurrent tombstone wins",
                records: [.example("phone", 6, at: 3_000, "p30", created: 300), .example("ipad", 2, at: 1_000, nil)],
                expectedWinner: 1, reason: "concurrent; a reset"),
            MergeScenario(
                name: "a position saved after seeing the tombstone comes back",
                records: [.example("ipad", 2, at: 1_000, nil), .example("phone", 7, seen: [("ipad", 2)], at: 2_000, "p31", created: 310)],
                expectedWinner: 1, reason: "one live head: it saw the others"),
            MergeScenario(
                name: "a concurrent explicit move back wins over reading further along",
                records: [
                    .example("phone", 6, at: 3_000, "p10", created: 100), .example("laptop", 3, at: 1_000, "p50", created: 500, explicit: true),
                ],
                expectedWinner: 1, reason: "concurrent; a reset"),
            MergeScenario(
                name: "three devices: the one that saw both others wins",
                records: [
                    .example("phone", 5, at: 1_000, "p10", created: 100), .example("laptop", 3, seen: [("phone", 5)], at: 2_000, "p12", created: 120),
                    .example("tablet", 2, seen: [("phone", 5), ("laptop", 3)], at: 3_000, "p15", created: 150),
                ],
                expectedWinner: 2, reason: "one live head: it saw the others"),
            MergeScenario(
                name: "catching up (moves mostly newer): the newer post is further along",
                records: [
                    .example("phone", 4, at: 1_000, "p40", created: 400, moves: .init(older: 0, newer: 9)),
                    .example("laptop", 2, at: 2_000, "p45", created: 450, moves: .init(older: 1, newer: 2)),
                ],
                expectedWinner: 1, reason: "concurrent; furthest"),
            MergeScenario(
                name: "no direction learned yet: the later of concurrent writes",
                records: [
                    .example("phone", 1, at: 1_000, "p40", created: 400, moves: .none),
                    .example("laptop", 1, at: 2_000, "p45", created: 450, moves: .none),
                ],
                expectedWinner: 1, reason: "concurrent; latest"),
            MergeScenario(
                name: "the Direction parameter overrides what was learned",
                records: [.example("phone", 4, at: 1_000, "p40", created: 400), .example("laptop", 2, at: 2_000, "p45", created: 450)],
                expectedWinner: 1, reason: "concurrent; furthest", parameters: ["Direction": .init(value: .string("Newer"))]),
            MergeScenario(
                name: "an algorithmic feed has no progress: the later of concurrent writes",
                records: [.example("phone", 4, at: 1_000, "p40", ordered: false), .example("laptop", 2, at: 2_000, "p45", ordered: false)],
                expectedWinner: 1, reason: "concurrent; latest"),
        ]
    }()
}
