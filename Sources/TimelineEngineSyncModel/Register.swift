import Foundation
import TimelineEngineCore

/// One position register (an account's timeline) as a replica holds it: each device's
/// **head**, its latest write by sequence number. This is the only place writes are merged.
///
/// - Merging is the per-device maximum by sequence (`insert`): a state-based CRDT, so replicas
///   that have seen the same writes hold the same heads whatever the order, loss, duplication
///   or delay of delivery.
/// - A head is **superseded** when another device's head was written after seeing it (its
///   context covers it). The others are **live**: written without seeing each other, they are
///   concurrent.
/// - The register's value is a function of its heads, which a `MergePolicy` computes
///   (`resolve`), so replicas with the same heads agree on it. The policies that model other
///   apps' rules may also read the order in which the heads arrived here (`arrivals`), which is
///   this replica's own history and not part of its state: two registers with the same heads
///   are equal whatever order they came in.
public struct Register: Sendable, Equatable {
    /// The heads, one per device, sorted by device id (by Unicode scalars).
    public private(set) var heads: [PositionRecord]
    /// For each head, when it arrived at this replica as a new write: a number that grows with
    /// each arrival. The same write published again (`clocksRepublished`) keeps its arrival.
    public private(set) var arrivals: [UInt64]
    /// For each head, when its device last reported it: its arrival, or a later report of it
    /// unchanged (`report(_:)`).
    public private(set) var reports: [UInt64]
    private var arrivalCount: UInt64 = 0

    public init() {
        heads = []
        arrivals = []
        reports = []
    }

    /// A register holding `records`, merged, arriving in their order.
    public init<S: Sequence>(_ records: S) where S.Element == PositionRecord {
        self.init()
        for record in records { insert(record) }
    }

    public static func == (lhs: Register, rhs: Register) -> Bool {
        lhs.heads == rhs.heads
    }

    /// The heads in the order their writes arrived here, the last to arrive last: the order in
    /// which a replica that passes them on hands them over, so that a write it relays (one it
    /// heard before it wrote its own) does not arrive after its own at the next.
    public var headsInArrivalOrder: [PositionRecord] {
        heads.indices.sorted { arrivals[$0] < arrivals[$1] }.map { heads[$0] }
    }

    /// The head whose write arrived last: the value where the last write to reach a server
    /// wins (Mastodon's markers).
    public var lastArrived: PositionRecord? {
        arrivals.indices.max { arrivals[$0] < arrivals[$1] }.map { heads[$0] }
    }

    /// The head reported last, a new write or one sent again unchanged: the value where every
    /// report overwrites (Pocket Casts, Jellyfin).
    public var lastReported: PositionRecord? {
        reports.indices.max { reports[$0] < reports[$1] }.map { heads[$0] }
    }

    /// `device` reported its head again, unchanged (a client that re-sends its position when it
    /// reconnects or while it is open).
    public mutating func report(_ device: String) {
        guard let index = heads.firstIndex(where: { $0.device == device }) else { return }
        arrivalCount &+= 1
        reports[index] = arrivalCount
    }

    public var isEmpty: Bool { heads.isEmpty }

    /// Merges `record`: it becomes its device's head unless that head is as recent. True when
    /// the heads changed.
    @discardableResult
    public mutating func insert(_ record: PositionRecord) -> Bool {
        var low = 0
        var high = heads.count
        while low < high {
            let middle = (low + high) / 2
            if VersionVector.precedes(heads[middle].device, record.device) { low = middle + 1 } else { high = middle }
        }
        arrivalCount &+= 1
        if low < heads.count, heads[low].device == record.device {
            guard record.supersedesOwn(heads[low]) else {
                arrivalCount &-= 1
                return false
            }
            // The same write published again with more learned of the other clocks
            // (`clocksRepublished`) is no new arrival, nor a new report: the write has not changed.
            let republished = record.sequence == heads[low].sequence
            heads[low] = record
            if republished {
                arrivalCount &-= 1
            } else {
                arrivals[low] = arrivalCount
                reports[low] = arrivalCount
            }
        } else {
            heads.insert(record, at: low)
            arrivals.insert(arrivalCount, at: low)
            reports.insert(arrivalCount, at: low)
        }
        return true
    }

    /// Whether merging `record` would change the heads.
    public func wouldChange(_ record: PositionRecord) -> Bool {
        head(of: record.device).map { record.supersedesOwn($0) } ?? true
    }

    /// `device`'s head.
    public func head(of device: String) -> PositionRecord? {
        heads.first { $0.device == device }
    }

    /// `device`'s head published again, when the clock bounds it has `learned` since (its
    /// `ClockEstimates`) tell more of the writers of the heads it is concurrent with than the
    /// head carries (`ClockOffsets.raised(by:)`): the same write, its bounds raised and its
    /// `clocksRevision` one higher. Nil when there is no such head, or it is not live (a later
    /// write saw it: bounds no longer order it), or nothing to add.
    ///
    /// A device learns how far another's clock is ahead when that device's write reaches it,
    /// which is often after its own last save: a phone that saved, then heard a laptop an hour
    /// fast, would otherwise hold the bound that orders the two writes until its next save, and
    /// the laptop's stale write would win meanwhile. The write's sequence and context stay, so
    /// nothing it had seen or not seen changes.
    public func clocksRepublished(of device: String, learned: ClockOffsets) -> PositionRecord? {
        let live = liveHeads
        guard let own = live.first(where: { $0.device == device }) else { return nil }
        let concurrent = Set(live.map(\.device)).subtracting([device])
        let writers = ClockOffsets(learned.entries.filter { concurrent.contains($0.device) }.map { ($0.device, $0.ahead) })
        guard let clocks = own.clocks.raised(by: writers) else { return nil }
        var republished = own
        republished.clocks = clocks
        republished.clocksRevision = own.clocksRevision &+ 1
        return republished
    }

    /// Removes every head `drop` selects (the grace period's purge).
    public mutating func removeAll(where drop: (PositionRecord) -> Bool) {
        for index in heads.indices.reversed() where drop(heads[index]) {
            heads.remove(at: index)
            arrivals.remove(at: index)
            reports.remove(at: index)
        }
    }

    /// The heads no other head has seen: concurrent writes, or the one write that saw all others.
    public var liveHeads: [PositionRecord] {
        heads.filter { head in !heads.contains { $0.device != head.device && $0.hasSeen(head) } }
    }

    /// Everything this register has merged: each device's highest sequence, its head's or one
    /// seen through another head's context. A new local write carries it as its context.
    public var seen: VersionVector {
        var vector = VersionVector()
        for head in heads {
            vector.raise(head.device, to: head.sequence)
            vector.formUnion(head.context)
        }
        return vector
    }

    /// The latest reset any head carries: a new local write's epoch.
    public var epoch: RegisterStamp {
        heads.reduce(RegisterStamp.zero) { max($0, $1.epoch) }
    }

    /// The epoch a local write of `device` carries on: its own head's, which already stands for
    /// every write that head had seen (a move back made there supersedes their epochs, whatever
    /// their devices' clocks say), or a later one among the heads it had not seen. The latest
    /// epoch of all (`epoch`) when the device has written nothing yet. A device whose clock runs
    /// an hour fast thus cannot take back a move back another device made after hearing from it.
    public func inheritedEpoch(of device: String) -> RegisterStamp {
        guard let own = head(of: device) else { return epoch }
        var inherited = own.epoch
        for head in heads where head.device != device && !own.context.includes(device: head.device, sequence: head.sequence) {
            inherited = max(inherited, head.epoch)
        }
        return inherited
    }

    /// Every device's moves along the register, added up.
    public var moves: PositionRecord.Moves {
        var total = PositionRecord.Moves()
        for index in heads.indices {
            total.older &+= heads[index].moves.older
            total.newer &+= heads[index].moves.newer
        }
        return total
    }

    /// The reading direction the reader's own saves show: the way they moved further, counted
    /// in posts, a jump as one (`PositionRecord.moves`); nil while they moved as far
    /// each way (or none did).
    public var learnedDirection: ReadingDirection? {
        let moves = self.moves
        if moves.older > moves.newer { return .older }
        if moves.newer > moves.older { return .newer }
        return nil
    }

    /// Whether saving `snapshot` on `device` would only repeat its head
    /// (`PositionRecord.isRepeated(by:)`): no new write.
    public func repeats(_ snapshot: PositionSnapshot, on device: String) -> Bool {
        head(of: device)?.isRepeated(by: snapshot) ?? false
    }

    /// The write a local save makes, to be inserted: its context is everything the register
    /// has seen, its epoch the latest reset (its own stamp for a tombstone or an explicit move
    /// back), its progress the post's creation time on a chronological feed, and its moves the
    /// device's own count plus this save's direction (an explicit move back is a decision, not
    /// reading, and counts neither way). `stamp` and `sequence` come from the device's clock
    /// and counter, `clocks` from its `ClockEstimates`, `reads` from its latest read posts. The
    /// one rule of local writes, for the store and for replay alike.
    public func localWrite(
        _ snapshot: PositionSnapshot?, key: RegisterKey, stamp: RegisterStamp, sequence: UInt64, savedAt: Date,
        explicit: Bool = false, ordered: Bool = true, visit: PositionRecord.Visit? = nil,
        clocks: ClockOffsets = .empty, reads: [ReadDigest] = []
    ) -> PositionRecord {
        let own = head(of: stamp.device)
        let reset = snapshot == nil || explicit
        let progress = snapshot.flatMap { snapshot in
            ordered ? snapshot.postCreatedAt.map { PositionRecord.Progress(createdAt: $0.timeIntervalSince1970, postId: snapshot.postId) } : nil
        }
        var moves = own?.moves ?? .none
        if !reset, let progress, let previous = own?.progress, previous != progress {
            let way: ReadingDirection = progress < previous ? .older : .newer
            let counted = own?.snapshot.flatMap { earlier in snapshot.map { ReadingDirection.countedMove(from: earlier, to: $0, towards: way) } } ?? 1
            if way == .older { moves.older &+= counted } else { moves.newer &+= counted }
        }
        return PositionRecord(
            key: key, stamp: stamp, sequence: sequence, context: seen.removing(stamp.device), savedAt: savedAt,
            snapshot: snapshot, epoch: reset ? stamp : inheritedEpoch(of: stamp.device), progress: progress, visit: visit, moves: moves,
            clocks: clocks, reads: reads)
    }

    /// The digests of the posts the other devices' heads say they read (`PositionRecord.reads`):
    /// what `device` adds to its own reads to count "N new above you".
    public func reads(elsewhereThan device: String) -> Set<ReadDigest> {
        var reads = Set<ReadDigest>()
        for head in heads where head.device != device { reads.formUnion(head.reads) }
        return reads
    }
}

extension ReadingDirection {
    /// Whether `a` is further along than `b` in this direction.
    public func isFurther(_ a: PositionRecord.Progress, than b: PositionRecord.Progress) -> Bool {
        self == .newer ? b < a : a < b
    }
}
