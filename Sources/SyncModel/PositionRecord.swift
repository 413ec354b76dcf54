import Foundation
import TimelineCore

/// One write to a position register: the saved position, or a tombstone that forgets it, with
/// the stamp that orders it among all writes.
///
/// `epoch` is the latest reset the writer had seen when it wrote: a reset is a tombstone or an
/// explicit move backwards (the reader scrolled back on purpose), and a reset's epoch is its own
/// stamp. FurthestRead compares epochs first, so that a reset wins over every position written
/// before it was seen, and progress along the timeline only counts within one epoch.
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

    public var key: RegisterKey
    public var stamp: RegisterStamp
    /// The writer's wall clock when it wrote, for display ("3 min ago"); never for ordering.
    public var savedAt: Date
    /// The position, or nil for a tombstone.
    public var snapshot: PositionSnapshot? {
        get { box?.snapshot }
        set { box = newValue.map(SnapshotBox.init) }
    }
    /// The snapshot behind one reference, so that copying a record (a merge copies millions)
    /// costs one retain, not the snapshot's dozen fields.
    private var box: SnapshotBox?
    public var epoch: RegisterStamp
    /// The position's progress when the timeline is chronological; nil for a tombstone or an
    /// unordered (algorithmic) feed.
    public var progress: Progress?

    public init(key: RegisterKey, stamp: RegisterStamp, savedAt: Date, snapshot: PositionSnapshot?, epoch: RegisterStamp,
                progress: Progress?) {
        self.key = key
        self.stamp = stamp
        self.savedAt = savedAt
        box = snapshot.map(SnapshotBox.init)
        self.epoch = epoch
        self.progress = snapshot == nil ? nil : progress
    }

    /// The device that wrote it.
    public var device: String { stamp.device }
    public var isTombstone: Bool { box == nil }

    public static func == (lhs: PositionRecord, rhs: PositionRecord) -> Bool {
        lhs.key == rhs.key && lhs.stamp == rhs.stamp && lhs.savedAt == rhs.savedAt && lhs.epoch == rhs.epoch && lhs.progress == rhs.progress
            && (lhs.box === rhs.box || lhs.box?.snapshot == rhs.box?.snapshot)
    }
    /// A tombstone or an explicit move backwards.
    public var isReset: Bool { epoch == stamp }

    /// Whether saving `snapshot` would only repeat this write: the same post at the same place
    /// in the viewport (within half a point). Such a save is no new write. A device that goes to
    /// the background where it already was re-saves its position with a newer stamp, and would
    /// otherwise win over the position the reader has since moved to on another device.
    public func isRepeated(by snapshot: PositionSnapshot) -> Bool {
        guard let own = self.snapshot else { return false }
        return own.postId == snapshot.postId && abs(own.viewportY - snapshot.viewportY) < 0.5
    }
}

/// An immutable snapshot behind a reference.
final class SnapshotBox: Sendable {
    let snapshot: PositionSnapshot

    init(_ snapshot: PositionSnapshot) {
        self.snapshot = snapshot
    }
}
