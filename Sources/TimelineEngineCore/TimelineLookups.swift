import Foundation

/// The lookups of a `TimelineIndex` that take a pass over every post to make, kept in a file so
/// that a process that starts on a timeline it indexed before does not make them again:
///
/// - the time order: the display indexes ordered by (createdAt, display index), and their times;
/// - an id table: display indexes by the hash of their post's id (open addressing), the first
///   occurrence of a repeated id only.
///
/// `TimelineEngineSearch` writes them to a file and maps them back (`TimelineLookups.write`, `map`). The id table is
/// only a hint: a lookup compares the post's id with the one asked for, so a damaged table
/// misses, and never answers with another post.
// @unchecked: the buffers are written before `init` returns, only read after, and released in `deinit`.
public final class TimelineLookups: @unchecked Sendable {
    /// Display indexes ordered by (createdAt, display index).
    package let order: UnsafeBufferPointer<Int32>
    /// `createdAt` of `order[k]`, as seconds since 1970.
    package let times: UnsafeBufferPointer<Double>
    /// Display indexes by id hash, -1 where empty; a power of two, empty when there is no table.
    package let idSlots: UnsafeBufferPointer<Int32>
    private let release: () -> Void

    package init(
        order: UnsafeBufferPointer<Int32>, times: UnsafeBufferPointer<Double>, idSlots: UnsafeBufferPointer<Int32>,
        release: @escaping () -> Void
    ) {
        self.order = order
        self.times = times
        self.idSlots = idSlots
        self.release = release
    }

    deinit { release() }

    /// The time order of `times` (one per post, in display order), without an id table.
    static func sorted(_ times: [Double]) -> TimelineLookups {
        let (order, sortedTimes) = TimelineLookups.timeOrder(of: times)
        let owned = OwnedBuffers()
        owned.adopt(order)
        owned.adopt(sortedTimes)
        return TimelineLookups(
            order: UnsafeBufferPointer(order), times: UnsafeBufferPointer(sortedTimes), idSlots: UnsafeBufferPointer(start: nil, count: 0),
            release: { owned.free() })
    }

    /// The display index of `id` in `posts` by the id table: nil when the table has none.
    func index(of id: String, in posts: UnsafeBufferPointer<Post>) -> Int? {
        guard !idSlots.isEmpty else { return nil }
        let mask = idSlots.count - 1
        var slot = Int(truncatingIfNeeded: TimelineLookups.hash(id)) & mask
        for _ in 0..<idSlots.count {
            let index = Int(idSlots[slot])
            guard index >= 0, index < posts.count else { return nil }
            if posts[index].id == id { return index }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// The hash of an id's UTF-8 bytes, as the vocabulary hashes words.
    static func hash(_ id: String) -> UInt64 {
        var id = id
        return id.withUTF8 { ByteHash.hash($0) }
    }

    /// The id table of `posts`: the first occurrence of each id, at most half full.
    package static func idTable(_ posts: UnsafeBufferPointer<Post>) -> [Int32] {
        var size = 16
        while size < posts.count * 2 { size *= 2 }
        var slots = [Int32](repeating: -1, count: size)
        let mask = size - 1
        for index in posts.indices {
            var slot = Int(truncatingIfNeeded: hash(posts[index].id)) & mask
            while slots[slot] >= 0 && posts[Int(slots[slot])].id != posts[index].id { slot = (slot + 1) & mask }
            if slots[slot] < 0 { slots[slot] = Int32(index) }
        }
        return slots
    }

    /// The indexes of `times` ordered by (time, index), and the times in that order: a stable
    /// radix sort of the times' bits, 11 at a time, skipping the digits every time shares (the
    /// high ones, in any real timeline). About half a comparison sort's time at a million posts.
    static func timeOrder(of times: [Double]) -> (UnsafeMutableBufferPointer<Int32>, UnsafeMutableBufferPointer<Double>) {
        let count = times.count
        // Doubles as unsigned integers in the same order: negative ones with every bit flipped,
        // the others with the sign bit set; -0 as 0.
        var keys = times.map { time -> UInt64 in
            let bits = (time == 0 ? 0 : time).bitPattern
            return bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        }
        let order = UnsafeMutableBufferPointer<Int32>.allocate(capacity: max(1, count))
        for index in 0..<count { order[index] = Int32(index) }
        var varying: UInt64 = 0
        for key in keys { varying |= key ^ keys[0] }
        if count > 1 {
            var scratchKeys = [UInt64](repeating: 0, count: count)
            var scratchOrder = [Int32](repeating: 0, count: count)
            let digitBits = 11
            let radix = 1 << digitBits
            let mask = UInt64(radix - 1)
            var counts = [Int](repeating: 0, count: radix)
            var shift = 0
            while shift < 64 {
                let digitShift = UInt64(shift)
                shift += digitBits
                // A digit every key shares moves nothing.
                guard (varying >> digitShift) & mask != 0 else { continue }
                counts.withUnsafeMutableBufferPointer { counts in
                    keys.withUnsafeMutableBufferPointer { keys in
                        scratchKeys.withUnsafeMutableBufferPointer { outKeys in
                            scratchOrder.withUnsafeMutableBufferPointer { outOrder in
                                for digit in 0..<radix { counts[digit] = 0 }
                                for key in keys { counts[Int((key >> digitShift) & mask)] += 1 }
                                var total = 0
                                for digit in 0..<radix {
                                    let here = counts[digit]
                                    counts[digit] = total
                                    total += here
                                }
                                for position in 0..<count {
                                    let key = keys[position]
                                    let digit = Int((key >> digitShift) & mask)
                                    let target = counts[digit]
                                    outKeys[target] = key
                                    outOrder[target] = order[position]
                                    counts[digit] = target + 1
                                }
                                _ = keys.update(fromContentsOf: outKeys)
                                _ = order.update(fromContentsOf: outOrder)
                            }
                        }
                    }
                }
            }
        }
        let sortedTimes = UnsafeMutableBufferPointer<Double>.allocate(capacity: max(1, count))
        for position in 0..<count { sortedTimes[position] = times[Int(order[position])] }
        return (UnsafeMutableBufferPointer(rebasing: order[..<count]), UnsafeMutableBufferPointer(rebasing: sortedTimes[..<count]))
    }
}
