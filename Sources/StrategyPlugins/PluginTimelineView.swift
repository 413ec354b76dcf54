import CTimelinePlugin
import Foundation
import TimelineCore

/// The columnar view of a `TimelineIndex` that plugins read (`timeline_plugin_timeline`): ids
/// and authors as one byte buffer each with offsets, creation times, heights, top edges and the
/// time order as plain arrays, texts on demand. Built once per index (kept as its attachment)
/// and shared by every restore on it, so no restore serializes the timeline.
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

    private init(_ index: TimelineIndex) {
        self.index = index
        let posts = index.posts
        (idBytes, idOffsets) = Self.strings(posts.map(\.id))
        (authorBytes, authorOffsets) = Self.strings(posts.map { $0.author ?? "" })
        createdAt = Self.copy(posts.map { $0.createdAt.timeIntervalSince1970 })
        heights = Self.copy(posts.map(\.effectiveHeight))
        tops = Self.copy(index.topEdges)
        timeOrder = Self.copy(index.timeOrder)
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

    private static func copy<T>(_ values: [T]) -> UnsafeMutableBufferPointer<T> {
        let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: max(1, values.count))
        _ = buffer.initialize(from: values)
        return buffer
    }

    /// All `strings` in one buffer, and `count + 1` offsets into it.
    private static func strings(_ strings: [String]) -> (UnsafeMutableBufferPointer<CChar>, UnsafeMutableBufferPointer<Int64>) {
        let total = strings.reduce(0) { $0 + $1.utf8.count }
        let bytes = UnsafeMutableBufferPointer<CChar>.allocate(capacity: max(1, total))
        let offsets = UnsafeMutableBufferPointer<Int64>.allocate(capacity: strings.count + 1)
        var position = 0
        for (number, string) in strings.enumerated() {
            offsets[number] = Int64(position)
            for byte in string.utf8 {
                bytes[position] = CChar(bitPattern: byte)
                position += 1
            }
        }
        offsets[strings.count] = Int64(position)
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
