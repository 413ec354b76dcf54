import Foundation
import TimelineEngineCPlugin
import TimelineEngineCore
import TimelineEngineSupport

/// The columnar view of a `TimelineIndex` that plugins read (`timeline_plugin_timeline`): ids
/// and authors as one byte buffer each with offsets, creation times, heights, top edges and the
/// time order as plain arrays, texts on demand. Built once per index (kept as its attachment)
/// and shared by every restore on it, so no restore serializes the timeline.
// @unchecked: the column buffers are filled in init and only read after; a text asked for is copied from the immutable index into the caller's buffer.
final class PluginTimelineView: @unchecked Sendable {
    let index: TimelineIndex
    private let idBytes: UnsafeMutableBufferPointer<CChar>
    private let idOffsets: UnsafeMutableBufferPointer<Int64>
    private let authorBytes: UnsafeMutableBufferPointer<CChar>
    private let authorOffsets: UnsafeMutableBufferPointer<Int64>
    private let createdAt: UnsafeMutableBufferPointer<Double>
    private let heights: UnsafeMutableBufferPointer<Double>
    private let tops: UnsafeMutableBufferPointer<Double>
    private let timeOrder: UnsafeMutableBufferPointer<Int32>

    /// The view of `index`, built on first need.
    static func of(_ index: TimelineIndex) -> PluginTimelineView {
        index.attachment(ObjectIdentifier(PluginTimelineView.self)) { PluginTimelineView(index) }
    }

    /// The columns, built side by side: ids, authors, and the numeric ones (which need the
    /// index's time order, itself a sort) are independent, so a large timeline's view costs
    /// about as long as its slowest column.
    private struct Columns {
        var ids: (UnsafeMutableBufferPointer<CChar>, UnsafeMutableBufferPointer<Int64>)?
        var authors: (UnsafeMutableBufferPointer<CChar>, UnsafeMutableBufferPointer<Int64>)?
        var numbers:
            (
                tops: UnsafeMutableBufferPointer<Double>, order: UnsafeMutableBufferPointer<Int32>,
                times: UnsafeMutableBufferPointer<Double>, heights: UnsafeMutableBufferPointer<Double>
            )?
    }

    /// Below this many posts the columns are built one after the other: starting threads would
    /// cost more than it saves.
    static let parallelThreshold = 4_096

    private init(_ index: TimelineIndex) {
        self.index = index
        let posts = index.posts
        let columns = Locked(Columns())
        let build: @Sendable (Int) -> Void = { part in
            switch part {
            case 0:
                let ids = Self.ids(posts)
                columns.withLock { $0.ids = ids }
            case 1:
                let authors = Self.authors(posts)
                columns.withLock { $0.authors = authors }
            default:
                let numbers = Self.numbers(index)
                columns.withLock { $0.numbers = numbers }
            }
        }
        if posts.count >= Self.parallelThreshold {
            ParallelWork.perform(count: 3, build)
        } else {
            for part in 0..<3 { build(part) }
        }
        let built = columns.withLock { $0 }
        (idBytes, idOffsets) = built.ids!
        (authorBytes, authorOffsets) = built.authors!
        (tops, timeOrder, createdAt, heights) = built.numbers!
    }

    /// Top edges, time order, creation times and heights, from the index's own arrays, without
    /// touching the posts.
    private static func numbers(_ index: TimelineIndex) -> (
        UnsafeMutableBufferPointer<Double>, UnsafeMutableBufferPointer<Int32>,
        UnsafeMutableBufferPointer<Double>, UnsafeMutableBufferPointer<Double>
    ) {
        let tops = copy(index.topEdges)
        let order = copy(index.timeOrder)
        let count = index.count
        let times = UnsafeMutableBufferPointer<Double>.allocate(capacity: max(1, count))
        index.timeOrderTimes.withUnsafeBufferPointer { sorted in
            for position in 0..<count { times[Int(order[position])] = sorted[position] }
        }
        let heights = UnsafeMutableBufferPointer<Double>.allocate(capacity: max(1, count))
        for position in 0..<count { heights[position] = tops[position + 1] - tops[position] }
        return (tops, order, times, heights)
    }

    deinit {
        for buffer in [idBytes.baseAddress, authorBytes.baseAddress] { buffer?.deallocate() }
        idOffsets.deallocate()
        authorOffsets.deallocate()
        createdAt.deallocate()
        heights.deallocate()
        tops.deallocate()
        timeOrder.deallocate()
    }

    private static func copy<T: BitwiseCopyable>(_ values: [T]) -> UnsafeMutableBufferPointer<T> {
        let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(1, values.count))
        values.withUnsafeBytes { source in
            if let base = source.baseAddress { UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: base, byteCount: source.count) }
        }
        return buffer
    }

    private static func ids(_ posts: [Post]) -> (UnsafeMutableBufferPointer<CChar>, UnsafeMutableBufferPointer<Int64>) {
        posts.withUnsafeBufferPointer { posts in
            var total = 0
            for post in posts { total += post.id.utf8.count }
            return strings(count: posts.count, total: total) { posts[$0].id }
        }
    }

    private static func authors(_ posts: [Post]) -> (UnsafeMutableBufferPointer<CChar>, UnsafeMutableBufferPointer<Int64>) {
        posts.withUnsafeBufferPointer { posts in
            var total = 0
            for post in posts { total += post.author?.utf8.count ?? 0 }
            return strings(count: posts.count, total: total) { posts[$0].author }
        }
    }

    /// `count` strings (nil counts as empty), `total` bytes in all, in one buffer, and
    /// `count + 1` offsets into it; each string is copied with one memcpy.
    @inline(__always)
    private static func strings(count: Int, total: Int, _ string: (Int) -> String?) -> (
        UnsafeMutableBufferPointer<CChar>, UnsafeMutableBufferPointer<Int64>
    ) {
        let bytes = UnsafeMutableBufferPointer<CChar>.allocate(capacity: max(1, total))
        let offsets = UnsafeMutableBufferPointer<Int64>.allocate(capacity: count + 1)
        let raw = UnsafeMutableRawPointer(bytes.baseAddress!)
        var position = 0
        for number in 0..<count {
            offsets[number] = Int64(position)
            guard var text = string(number) else { continue }
            text.withUTF8 { source in
                if let base = source.baseAddress { (raw + position).copyMemory(from: base, byteCount: source.count) }
                position += source.count
            }
        }
        offsets[count] = Int64(position)
        return (bytes, offsets)
    }

    /// The C struct over this view; valid while the view lives.
    var timeline: timeline_plugin_timeline {
        timeline_plugin_timeline(
            count: Int64(index.count),
            id_bytes: UnsafePointer(idBytes.baseAddress), id_offsets: UnsafePointer(idOffsets.baseAddress),
            author_bytes: UnsafePointer(authorBytes.baseAddress), author_offsets: UnsafePointer(authorOffsets.baseAddress),
            created_at: UnsafePointer(createdAt.baseAddress), heights: UnsafePointer(heights.baseAddress),
            tops: UnsafePointer(tops.baseAddress), time_order: UnsafePointer(timeOrder.baseAddress),
            viewport_height: index.viewportHeight,
            context: UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()),
            index_of: { context, bytes, length in
                guard let context, let bytes, length >= 0 else { return -1 }
                let view = Unmanaged<PluginTimelineView>.fromOpaque(context).takeUnretainedValue()
                let id = String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(length)), as: UTF8.self)
                return view.index.index(of: id).map(Int64.init) ?? -1
            },
            text: { context, position, buffer, capacity in
                guard let context else { return -1 }
                let view = Unmanaged<PluginTimelineView>.fromOpaque(context).takeUnretainedValue()
                guard position >= 0, position < Int64(view.index.count), let text = view.index.posts[Int(position)].text else { return -1 }
                var utf8 = text.utf8CString
                utf8.removeLast()
                if let buffer, capacity > 0, !utf8.isEmpty {
                    utf8.withUnsafeBufferPointer { source in
                        buffer.update(from: source.baseAddress!, count: min(Int(capacity), source.count))
                    }
                }
                return Int64(utf8.count)
            })
    }
}
