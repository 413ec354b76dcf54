/// What a device knows of the other devices' clocks: for each, a lower bound of how far that
/// device's clock is ahead of its own, in milliseconds (negative: behind). Each write carries
/// its writer's bounds, so that a merge policy can order concurrent writes by their true time
/// where the bounds decide it, whatever the clocks say (`CausalFurthest`).
///
/// A write from device D stamped S that arrives when the local wall clock reads W was made no
/// later than now: D's clock read S when the local clock read W − delay, so D's clock is ahead
/// by S − W + delay ≥ S − W. The largest such sample is the bound; a fresh delivery makes it
/// tight. A bound older than a day gives way to the next sample, so that a clock that was
/// corrected is learned again.
public struct ClockOffsets: Sendable, Hashable, CustomStringConvertible {
    /// (device, milliseconds ahead at least), sorted by device id, each device once.
    public private(set) var entries: [(device: String, ahead: Int64)]

    public static let empty = ClockOffsets()

    public init() {
        entries = []
    }

    public init<S: Sequence>(_ pairs: S) where S.Element == (String, Int64) {
        entries = []
        for (device, ahead) in pairs { self[device] = ahead }
    }

    /// The bound for `device`, if known.
    public subscript(device: String) -> Int64? {
        get { entries.first { $0.device == device }?.ahead }
        set {
            if let index = entries.firstIndex(where: { $0.device == device }) {
                if let newValue { entries[index].ahead = newValue } else { entries.remove(at: index) }
            } else if let newValue {
                let index = entries.firstIndex { VersionVector.precedes(device, $0.device) } ?? entries.count
                entries.insert((device, newValue), at: index)
            }
        }
    }

    public var isEmpty: Bool { entries.isEmpty }

    public static func == (lhs: ClockOffsets, rhs: ClockOffsets) -> Bool {
        lhs.entries.elementsEqual(rhs.entries) { $0.device == $1.device && $0.ahead == $1.ahead }
    }

    public func hash(into hasher: inout Hasher) {
        for entry in entries {
            hasher.combine(entry.device)
            hasher.combine(entry.ahead)
        }
    }

    public var description: String {
        "{" + entries.map { "\($0.device): \($0.ahead) ms" }.joined(separator: ", ") + "}"
    }

    /// These bounds with `learned` added, when it tells more: a device not known here, or a
    /// bound raised by more than `marginMilliseconds` (a smaller rise cannot change an order).
    /// Each device keeps its greater bound. Nil when `learned` adds nothing that matters.
    public func raised(by learned: ClockOffsets) -> ClockOffsets? {
        var result = self
        var raised = false
        for entry in learned.entries {
            if let known = self[entry.device] {
                guard entry.ahead > known else { continue }
                result[entry.device] = entry.ahead
                if entry.ahead &- known > Self.marginMilliseconds { raised = true }
            } else {
                result[entry.device] = entry.ahead
                raised = true
            }
        }
        return raised ? result : nil
    }

    /// The window in which two corrected times count as the same moment.
    public static let marginMilliseconds: Int64 = 2_000

    /// Which of two concurrent writes was made later in true time, as far as the bounds they
    /// carry tell: `a`'s writer's clock is ahead of `b`'s by at least `b.clocks[a]` and at most
    /// `−a.clocks[b]`, so `a` was made between its stamp minus the upper bound and its stamp
    /// minus the lower one. Nil when the bounds cannot tell (none known, or the spans overlap
    /// within the margin).
    public static func later(_ a: PositionRecord, _ b: PositionRecord) -> PositionRecord? {
        laterIsFirst(a, b).map { $0 ? a : b }
    }

    /// `later(a, b)` as whether it is `a` (nil: the bounds cannot tell), without copying either.
    public static func laterIsFirst(_ a: PositionRecord, _ b: PositionRecord) -> Bool? {
        laterIsFirst(a, b, stamps: (a.stamp.time, b.stamp.time))
    }

    /// `laterIsFirst(a, b)` for two times stamped by `a`'s and `b`'s writers' clocks.
    private static func laterIsFirst(_ a: PositionRecord, _ b: PositionRecord, stamps: (HybridTimestamp, HybridTimestamp)) -> Bool? {
        let lower = b.clocks[a.device]
        let upper = a.clocks[b.device].map { 0 &- $0 }
        guard lower != nil || upper != nil else { return nil }
        let stampA = Int64(clamping: stamps.0.milliseconds)
        let stampB = Int64(clamping: stamps.1.milliseconds)
        // b is later when even a's latest possible true time (its stamp minus the lower bound) is before b.
        if let lower, stampB &- (stampA &- lower) > marginMilliseconds { return false }
        // a is later when even a's earliest possible true time (its stamp minus the upper bound) is after b.
        if let upper, (stampA &- upper) &- stampB > marginMilliseconds { return true }
        return nil
    }
}

extension ClockOffsets {
    /// How far `a`'s writer's clock is ahead of `b`'s, as best the bounds the two writes carry
    /// say (`b.clocks[a]` at least, `−a.clocks[b]` at most), when they show it wrong: by at least
    /// `wrongClockMilliseconds` either way, the whole span they give beyond it (a span that
    /// holds a right clock, as a day-late delivery's loose bound does, shows nothing), or the one
    /// bound known beyond it on its own side (a lower bound of five minutes ahead or more, an
    /// upper bound of five minutes behind or more: a bound the other way holds a right clock). The estimate is the middle of the span, or that one bound. Nil when
    /// the bounds show no wrong clock: a smaller lead is as likely a delivery's delay. Each bound
    /// is the truth widened by its delivery's delay; where no bound decides the order of two
    /// writes (`laterIsFirst`), their stamps corrected by this estimate are a better guess than
    /// the stamps as a wrong clock wrote them: a device an hour fast is an hour fast in its stamps.
    public static func wrongClockLead(of a: PositionRecord, over b: PositionRecord) -> Int64? {
        let lower = b.clocks[a.device]
        let upper = a.clocks[b.device].map { 0 &- $0 }
        let wrong = wrongClockMilliseconds
        switch (lower, upper) {
        case (let lower?, let upper?):
            guard lower >= wrong || upper <= 0 &- wrong else { return nil }
            return lower / 2 &+ upper / 2
        // One bound shows a wrong clock only on its own side: a lower bound that `a` is ahead by
        // at least five minutes, or an upper bound that it is behind by at least five. A late
        // delivery gives a negative lower bound ("at most 14 minutes behind"), which a right
        // clock satisfies as well.
        case (let lower?, nil): return lower >= wrong ? lower : nil
        case (nil, let upper?): return upper <= 0 &- wrong ? upper : nil
        case (nil, nil): return nil
        }
    }

    /// Which of `a` and `b` was written later, when their writers' clocks are known to disagree
    /// by a wrong clock's lead (`wrongClockLead`) and the stamps corrected by it are further apart
    /// than `marginMilliseconds`; nil otherwise. An hour-fast clock's stamps are then an hour
    /// back, not the latest.
    public static func wrongClockLaterIsFirst(_ a: PositionRecord, _ b: PositionRecord) -> Bool? {
        guard let lead = wrongClockLead(of: a, over: b) else { return nil }
        let difference = (Int64(clamping: a.stamp.time.milliseconds) &- lead) &- Int64(clamping: b.stamp.time.milliseconds)
        return abs(difference) > marginMilliseconds ? difference > 0 : nil
    }

    /// Whether the bounds `a` and `b` carry show their writers' clocks agreeing: at least one is
    /// known, and every one known is within `wrongClockMilliseconds`. A clock an hour off either
    /// way shows in any bound a prompt delivery gave, so a near-zero bound says the stamps can be
    /// trusted to within minutes; with no bound, nothing is known.
    public static func clocksAgree(_ a: PositionRecord, _ b: PositionRecord) -> Bool {
        let known = [b.clocks[a.device], a.clocks[b.device]].compactMap { $0 }
        return !known.isEmpty && known.allSatisfy { $0.magnitude < wrongClockMilliseconds.magnitude }
    }

    /// Stamps further apart than this, from clocks that agree (`clocksAgree`), were written in
    /// their order: devices keep time to within seconds.
    public static let orderedStampsMilliseconds: Int64 = 60_000

    /// A lead this large is a wrong clock, not a delivery's delay (`Sync.MaxClockOffset`'s default).
    public static let wrongClockMilliseconds: Int64 = 300_000

    /// Whether `a` was written after `b` by their stamps, corrected by `wrongClockLead` where the
    /// bounds show a wrong clock and taken as written otherwise; ties go to the greater stamp
    /// (time, then device id), so the order is total.
    public static func estimatedLaterIsFirst(_ a: PositionRecord, _ b: PositionRecord) -> Bool {
        let corrected = Int64(clamping: a.stamp.time.milliseconds) &- (wrongClockLead(of: a, over: b) ?? 0)
        let other = Int64(clamping: b.stamp.time.milliseconds)
        return corrected != other ? corrected > other : b.stamp < a.stamp
    }
}

extension ClockOffsets {
    /// Whether the moment `times.0`, stamped by `a`'s writer's clock, came after `times.1`,
    /// stamped by `b`'s writer's: as the bounds the two writes carry tell (`laterIsFirst`), else
    /// by the stamps corrected by a wrong clock's lead (`wrongClockLead`); at a tie, the first.
    /// A laptop an hour fast that moved back before a phone wrote stamps its move back later;
    /// the bounds put it first.
    public static func estimatedLaterIsFirst(_ a: PositionRecord, _ b: PositionRecord, times: (HybridTimestamp, HybridTimestamp)) -> Bool {
        if let known = laterIsFirst(a, b, stamps: times) { return known }
        let corrected = Int64(clamping: times.0.milliseconds) &- (wrongClockLead(of: a, over: b) ?? 0)
        return corrected >= Int64(clamping: times.1.milliseconds)
    }
}

/// A device's running estimate of the other devices' clocks, kept where its state is (the store,
/// a replayed device), from which its writes take their `ClockOffsets`.
public struct ClockEstimates: Sendable, Equatable {
    /// Per device: the bound, and the local wall time (ms) it was last raised or renewed.
    public private(set) var bounds: [String: (ahead: Int64, at: UInt64)] = [:]

    /// How long a bound lasts before the next sample replaces it even when lower: a day.
    public static let lifetimeMilliseconds: UInt64 = 86_400_000

    public init() {}

    public init(bounds: [String: (ahead: Int64, at: UInt64)]) {
        self.bounds = bounds
    }

    /// Takes in a write of `device` stamped `stamp`, first seen when the local wall clock reads
    /// `wall` (milliseconds since 1970).
    public mutating func observe(device: String, stamp: HybridTimestamp, wall: UInt64) {
        let sample = Int64(clamping: stamp.milliseconds) &- Int64(clamping: wall)
        if let current = bounds[device], sample <= current.ahead, wall < current.at &+ Self.lifetimeMilliseconds { return }
        bounds[device] = (sample, wall)
    }

    /// The bounds a local write carries.
    public var offsets: ClockOffsets {
        ClockOffsets(bounds.map { ($0.key, $0.value.ahead) })
    }

    public static func == (lhs: ClockEstimates, rhs: ClockEstimates) -> Bool {
        lhs.bounds.count == rhs.bounds.count
            && lhs.bounds.allSatisfy { key, value in
                rhs.bounds[key].map { $0.ahead == value.ahead && $0.at == value.at } ?? false
            }
    }
}
