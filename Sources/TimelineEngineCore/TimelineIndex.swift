import Foundation
import TimelineEngineSupport

/// Lookup structures over a timeline, built once and shared by every strategy:
///
/// - id → display index (a scan for the first few lookups, then a table; or a kept table)
/// - the display indexes sorted by `createdAt` (display order may differ from time order), for
///   binary search by time, sorted on first use or kept (`TimelineLookups`)
/// - prefix sums of heights, so that index → content offset and offset → index are cheap
/// - attachments: what another module builds once per index (the word index over the texts,
///   `TimelineEngineSearch`; a plugin's columnar view)
///
/// Immutable after creation and safe to share between threads.
public final class TimelineIndex: Sendable {
    public let timeline: Timeline
    /// The id table, built once lookups show the index is used for more than a few: a single
    /// restore that finds its post by id scans the ids instead (about 10 ms at a million posts,
    /// against 250 ms to build the table).
    private let positions = Locked<(table: [String: Int32]?, lookups: Int)>((nil, 0))
    /// Lookups answered by a scan before the id table is built.
    static let scannedLookups = 3
    /// `offsets[i]` is the y of post i's top edge; `offsets[count]` is the content height.
    private let offsets: [Double]
    /// The time order and its times (sorted on first use, since a restore that finds its post
    /// by id never needs them), and an id table when the lookups were mapped from a file.
    private let builtLookups: Locked<TimelineLookups?>
    /// The lookups given at creation when they carry an id table: set once, read without a lock.
    private let keptIds: TimelineLookups?
    private let attachments = Locked<[ObjectIdentifier: any Sendable]>([:])

    /// The index of `timeline`. `lookups` of its posts (mapped from a store, say) are used
    /// instead of making them; ones of another number of posts are ignored.
    public init(_ timeline: Timeline, lookups: TimelineLookups? = nil) {
        self.timeline = timeline
        let given = lookups.flatMap { $0.order.count == timeline.posts.count ? $0 : nil }
        builtLookups = Locked(given)
        keptIds = given.flatMap { $0.idSlots.isEmpty ? nil : $0 }
        let posts = timeline.posts
        var offsets = [Double](repeating: 0, count: posts.count + 1)
        posts.withUnsafeBufferPointer { buffer in
            var y = 0.0
            for index in buffer.indices {
                offsets[index] = y
                y += buffer[index].effectiveHeight
            }
            offsets[buffer.count] = y
        }
        self.offsets = offsets
    }

    /// The id table: id → first display index.
    private func buildPositions() -> [String: Int32] {
        var positions = [String: Int32](minimumCapacity: count)
        timeline.posts.withUnsafeBufferPointer { buffer in
            // Backwards, so that the first occurrence of a repeated id is the one that stays,
            // with one hash lookup per post.
            for index in buffer.indices.reversed() { positions.updateValue(Int32(index), forKey: buffer[index].id) }
        }
        return positions
    }

    /// The time order and the other lookups: given, or sorted on first use.
    package var lookups: TimelineLookups {
        builtLookups.withLock { built in
            if let built { return built }
            let sorted = TimelineLookups.sorted(timeline.posts.map { $0.createdAt.timeIntervalSince1970 })
            built = sorted
            return sorted
        }
    }

    /// Display indexes ordered by (createdAt, display index): a copy, for readers that walk all
    /// of it; `displayIndex(atTimeOrderPosition:)` reads one.
    public var timeOrder: [Int32] { Array(lookups.order) }

    /// `createdAt` of each `timeOrder` entry, as seconds since 1970: a copy of the whole array,
    /// for readers that walk all of it.
    public var timeOrderTimes: [Double] { Array(lookups.times) }

    /// The display index of the post at `position` in the time order.
    public func displayIndex(atTimeOrderPosition position: Int) -> Int { Int(lookups.order[position]) }

    /// `createdAt` of `timeOrder[k]`, as seconds since 1970.
    private var sortedTimes: UnsafeBufferPointer<Double> { lookups.times }

    public var count: Int { timeline.posts.count }

    /// The bytes of the index's own lookup structures (id table, time order, times, offsets),
    /// not counting the posts, whose id strings the id table shares, nor the lazily built text
    /// index.
    public var memoryFootprint: Int {
        // A Swift dictionary keeps its load factor at most 3/4, in a power-of-two bucket count;
        // each bucket holds a key and a value, plus one bit of occupancy. The table counts as
        // built, as it is once the index serves more than a few lookups.
        var buckets = 1
        while Double(buckets) * 0.75 < Double(max(1, count)) { buckets *= 2 }
        let table = buckets * (MemoryLayout<String>.stride + MemoryLayout<Int32>.stride) + buckets / 8
        // The time order counts as built: it is, once any strategy but ExactMatch has run.
        return table + count * (MemoryLayout<Int32>.stride + MemoryLayout<Double>.stride) + offsets.capacity * MemoryLayout<Double>.stride
    }
    public var posts: [Post] { timeline.posts }
    public var viewportHeight: Double { timeline.viewportHeight }

    /// The display index of the post with `id` (its first occurrence).
    public func index(of id: String) -> Int? {
        if let keptIds { return timeline.posts.withUnsafeBufferPointer { keptIds.index(of: id, in: $0) } }
        let table = positions.withLock { state -> [String: Int32]? in
            if let table = state.table { return table }
            state.lookups += 1
            guard state.lookups > TimelineIndex.scannedLookups else { return nil }
            let built = buildPositions()
            state.table = built
            return built
        }
        if let table { return table[id].map(Int.init) }
        return timeline.posts.withUnsafeBufferPointer { buffer in buffer.firstIndex { $0.id == id } }
    }

    /// A structure derived from this index by another module (a plugin's columnar view, say),
    /// built by `make` on first need and kept as long as the index, under `key`.
    public func attachment<T: Sendable>(_ key: ObjectIdentifier, make: () -> T) -> T {
        attachments.withLock { attachments in
            if let existing = attachments[key] as? T { return existing }
            let made = make()
            attachments[key] = made
            return made
        }
    }

    /// The attachment under `key`, if it was built.
    public func existingAttachment<T: Sendable>(_ key: ObjectIdentifier, as type: T.Type = T.self) -> T? {
        attachments.withLock { $0[key] as? T }
    }

    /// `count + 1` offsets: the y of each post's top edge, then the content height.
    public var topEdges: [Double] { offsets }

    /// The y of the post's top edge, from the top of the content.
    public func y(of index: Int) -> Double {
        offsets[max(0, min(index, count))]
    }

    /// The height of the whole content.
    public var contentHeight: Double { offsets[count] }

    /// The largest content offset that still fills the viewport.
    public var maximumContentOffset: Double { max(0, contentHeight - viewportHeight) }

    /// `offset` clamped to [0, maximumContentOffset].
    public func clamp(offset: Double) -> Double {
        min(max(0, offset), maximumContentOffset)
    }

    /// The display index of the post covering content offset `offset` (clamped to the content).
    public func index(atOffset offset: Double) -> Int? {
        guard count > 0 else { return nil }
        // The last post whose top edge is at or above `offset` (the first when there is none, or
        // `offset` is NaN).
        return max(0, offsets[..<count].partitionPoint { !($0 <= offset) } - 1)
    }

    /// The position in `timeOrder` of the first post created at or after `date`.
    public func timeOrderPosition(atOrAfter date: Date) -> Int {
        let target = date.timeIntervalSince1970
        return sortedTimes.partitionPoint { !($0 < target) }
    }

    /// The position in `timeOrder` of the first post created strictly after `seconds`
    /// (seconds since 1970).
    public func timeOrderPosition(after seconds: Double) -> Int {
        sortedTimes.partitionPoint { !($0 <= seconds) }
    }

    /// `createdAt` (seconds since 1970) of the post at `position` in `timeOrder`.
    public func time(atTimeOrderPosition position: Int) -> Double {
        sortedTimes[position]
    }

    /// The index of the newest post (greatest `createdAt`; the lower display index on a tie).
    public var newestIndex: Int? {
        let sorted = lookups
        guard let last = sorted.times.last else { return nil }
        var position = sorted.times.count - 1
        while position > 0, sorted.times[position - 1] == last { position -= 1 }
        return Int(sorted.order[position])
    }

    /// The index of the oldest post (least `createdAt`; the lower display index on a tie).
    public var oldestIndex: Int? {
        lookups.order.first.map(Int.init)
    }
}
