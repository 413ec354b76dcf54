import Foundation
import TimelineEngineCore

/// One write to a position register: the saved position, or a tombstone that forgets it.
///
/// - `sequence` numbers the writer's own writes (1, 2, 3, …, one counter per device): no clock
///   can disturb it, and a device's latest write to a register is the one with the highest.
/// - `context` is what the writer had merged when it wrote: for each other device, the highest
///   sequence number of its writes to this register (a version vector). A write whose context
///   covers another device's latest write was made after seeing it.
/// - `stamp` (hybrid clock, device) is for display, the grace period and breaking ties; the
///   `LastWriterWins` policy orders by it.
/// - `epoch` is the latest reset the writer had seen: a reset is a tombstone or an explicit
///   move backwards (the reader scrolled back on purpose), and a reset's epoch is its own stamp.
/// - `visit` says how long the writing device had been open, and how far the reader had moved
///   since it opened, when it wrote: a write seconds after opening that moved little is a
///   glance, not reading.
/// - `moves` counts how far the writer's saves to this register moved towards older posts and
///   towards newer ones, in posts, a flick or a jump of more than 4 counting as one
///   (`ReadingDirection.countedMove`): the reading direction a register learns.
/// - `clocks` is what the writer knew of the other devices' clocks (`ClockOffsets`), so that
///   concurrent writes can be put in their true order where those bounds tell it.
/// - `clocksRevision` counts the times the writer published this same write again with more
///   learned of the other clocks since (`Register.clocksRepublished`): the bounds a device learns
///   after its last save would otherwise wait for its next save to reach the others.
/// - `reads` are the digests of the posts the writer read last (`ReadDigest`), at
///   most `maximumReads`, so that another device counts "N new above you" without the posts
///   read here.
public struct PositionRecord: Sendable, Equatable {
    /// How far along a chronological timeline a position is: the post's creation time, then its id.
    public struct Progress: Sendable, Comparable, Hashable {
        public let createdAt: Double
        public let postId: String

        public init(createdAt: Double, postId: String) {
            self.createdAt = createdAt
            self.postId = postId
        }

        public static func < (lhs: Progress, rhs: Progress) -> Bool {
            if lhs.createdAt != rhs.createdAt { return lhs.createdAt < rhs.createdAt }
            return lhs.postId.unicodeScalars.lexicographicallyPrecedes(rhs.postId.unicodeScalars)
        }
    }

    /// The writing device's visit when it wrote: seconds since it was opened (launched or
    /// brought to the foreground), and posts the reader had moved since then.
    public struct Visit: Sendable, Hashable {
        public var seconds: Double
        public var posts: Int

        public init(seconds: Double, posts: Int) {
            self.seconds = seconds
            self.posts = posts
        }
    }

    /// How many of a device's saves to a register moved towards older posts (down a
    /// newest-first feed) and towards newer ones, counted by the device as it saves.
    public struct Moves: Sendable, Hashable {
        public var older: Int
        public var newer: Int

        public init(older: Int = 0, newer: Int = 0) {
            self.older = older
            self.newer = newer
        }

        public static let none = Moves()
    }

    public var key: RegisterKey
    public var stamp: RegisterStamp
    /// The writer's own number for this write; a device's writes have increasing numbers.
    public var sequence: UInt64
    /// Everything else, behind one reference: copying a record (a merge or a resolution of
    /// millions copies them) then costs one retain, not one for each of its dozen fields. The
    /// parts are immutable; setting one makes new parts.
    private var parts: Parts

    /// What the writer had merged when it wrote: other devices' highest sequence numbers.
    public var context: VersionVector {
        get { parts.context }
        set { parts = parts.with { $0.context = newValue } }
    }
    /// The writer's wall clock when it wrote, for display ("3 min ago"); never for ordering.
    public var savedAt: Date {
        get { parts.savedAt }
        set { parts = parts.with { $0.savedAt = newValue } }
    }
    /// The position, or nil for a tombstone.
    public var snapshot: PositionSnapshot? {
        get { parts.snapshot }
        set { parts = parts.with { $0.snapshot = newValue } }
    }
    public var epoch: RegisterStamp {
        get { parts.epoch }
        set { parts = parts.with { $0.epoch = newValue } }
    }
    /// The position's progress when the timeline is chronological; nil for a tombstone or an
    /// unordered (algorithmic) feed.
    public var progress: Progress? {
        get { parts.progress }
        set { parts = parts.with { $0.progress = newValue } }
    }
    /// The writer's visit when it wrote; nil when the writer did not say (a save from the
    /// command line, a version-1 write): such a write counts as reading.
    public var visit: Visit? {
        get { parts.visit }
        set { parts = parts.with { $0.visit = newValue } }
    }
    /// The writer's count of its moves along this register so far, this write's included.
    public var moves: Moves {
        get { parts.moves }
        set { parts = parts.with { $0.moves = newValue } }
    }
    /// What the writer knew of the other devices' clocks.
    public var clocks: ClockOffsets {
        get { parts.clocks }
        set { parts = parts.with { $0.clocks = newValue } }
    }
    /// How many times the writer published this write again with more clock bounds; 0 as made.
    public var clocksRevision: UInt64 {
        get { parts.clocksRevision }
        set { parts = parts.with { $0.clocksRevision = newValue } }
    }
    /// The digests of the posts the writer had read last when it wrote, earliest first.
    public var reads: [ReadDigest] {
        get { parts.reads }
        set { parts = parts.with { $0.reads = Self.bounded(newValue) } }
    }

    /// The most read posts a write carries: 8 bytes each, 11 KB in the wire's base64. A device
    /// that reads more between two of another's syncs has its earliest reads of them counted
    /// as new there.
    public static let maximumReads = 1_024

    private static func bounded(_ reads: [ReadDigest]) -> [ReadDigest] {
        reads.count > maximumReads ? Array(reads.suffix(maximumReads)) : reads
    }

    public init(
        key: RegisterKey, stamp: RegisterStamp, sequence: UInt64? = nil, context: VersionVector = .empty, savedAt: Date,
        snapshot: PositionSnapshot?, epoch: RegisterStamp, progress: Progress?, visit: Visit? = nil, moves: Moves = .none,
        clocks: ClockOffsets = .empty, clocksRevision: UInt64 = 0, reads: [ReadDigest] = []
    ) {
        self.key = key
        self.stamp = stamp
        self.sequence = sequence ?? Self.legacySequence(of: stamp)
        parts = Parts(
            Parts.Fields(
                context: context.removing(stamp.device), savedAt: savedAt, snapshot: snapshot, epoch: epoch,
                progress: snapshot == nil ? nil : progress, visit: visit, moves: moves, clocks: clocks,
                clocksRevision: clocksRevision, reads: Self.bounded(reads)))
    }

    /// The number a write without one (version 1 of the wire format, or a store from before
    /// causal heads) takes: its clock's milliseconds, which grow with each of its device's
    /// writes as a sequence does.
    public static func legacySequence(of stamp: RegisterStamp) -> UInt64 {
        stamp.time.milliseconds
    }

    /// The device that wrote it.
    public var device: String { stamp.device }
    public var isTombstone: Bool { parts.snapshot == nil }

    public static func == (lhs: PositionRecord, rhs: PositionRecord) -> Bool {
        lhs.key == rhs.key && lhs.stamp == rhs.stamp && lhs.sequence == rhs.sequence
            && (lhs.parts === rhs.parts || lhs.parts.fields == rhs.parts.fields)
    }
    /// A tombstone or an explicit move backwards.
    public var isReset: Bool { epoch == stamp }

    /// Where a write stands among its device's writes: its sequence number, then its stamp's
    /// time (two version-1 writes in one millisecond), then its clocks revision (the same write
    /// published again with more clock bounds). A device's head is its greatest; the store and
    /// the server order heads by it too.
    public struct Order: Comparable, Sendable {
        public let sequence: UInt64
        public let time: HybridTimestamp
        public let clocksRevision: UInt64

        public init(sequence: UInt64, time: HybridTimestamp, clocksRevision: UInt64) {
            self.sequence = sequence
            self.time = time
            self.clocksRevision = clocksRevision
        }

        public static func < (lhs: Order, rhs: Order) -> Bool {
            (lhs.sequence, lhs.time, lhs.clocksRevision) < (rhs.sequence, rhs.time, rhs.clocksRevision)
        }
    }

    /// This write's place among its device's writes.
    public var order: Order { Order(sequence: sequence, time: stamp.time, clocksRevision: clocksRevision) }

    /// Whether this write replaces `other`, a write of the same device, as its latest.
    public func supersedesOwn(_ other: PositionRecord) -> Bool {
        other.order < order
    }

    /// Whether this write was made after seeing `other`, a write of another device.
    public func hasSeen(_ other: PositionRecord) -> Bool {
        context.includes(device: other.device, sequence: other.sequence)
    }

    /// Whether saving `snapshot` would only repeat this write: the same post at the same place
    /// in the viewport (within half a point). Such a save is no new write. A device that goes to
    /// the background where it already was re-saves its position with a newer stamp, and would
    /// otherwise win over the position the reader has since moved to on another device.
    public func isRepeated(by snapshot: PositionSnapshot) -> Bool {
        guard let own = self.snapshot else { return false }
        return own.postId == snapshot.postId && abs(own.viewportY - snapshot.viewportY) < 0.5
    }
}

/// A record's parts behind one reference, never changed once made.
final class Parts: Sendable {
    struct Fields: Sendable, Equatable {
        var context: VersionVector
        var savedAt: Date
        var snapshot: PositionSnapshot?
        var epoch: RegisterStamp
        var progress: PositionRecord.Progress?
        var visit: PositionRecord.Visit?
        var moves: PositionRecord.Moves
        var clocks: ClockOffsets
        var clocksRevision: UInt64
        var reads: [ReadDigest]
    }

    let fields: Fields

    init(_ fields: Fields) {
        self.fields = fields
    }

    var context: VersionVector { fields.context }
    var savedAt: Date { fields.savedAt }
    var snapshot: PositionSnapshot? { fields.snapshot }
    var epoch: RegisterStamp { fields.epoch }
    var progress: PositionRecord.Progress? { fields.progress }
    var visit: PositionRecord.Visit? { fields.visit }
    var moves: PositionRecord.Moves { fields.moves }
    var clocks: ClockOffsets { fields.clocks }
    var clocksRevision: UInt64 { fields.clocksRevision }
    var reads: [ReadDigest] { fields.reads }

    /// New parts with `change` applied.
    func with(_ change: (inout Fields) -> Void) -> Parts {
        var copy = fields
        change(&copy)
        return Parts(copy)
    }
}
