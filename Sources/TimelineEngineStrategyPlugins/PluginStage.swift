import Foundation
import TimelineEngineCPlugin
import TimelineEngineCore
import TimelineEngineRestorationModel

/// A restoration stage made by a plugin: each proposal crosses the C ABI with the timeline's
/// columnar view and the snapshot, and comes back as a candidate the engine checks (an index in
/// range, a finite confidence, a known placement) before anyone uses it.
struct PluginStage: RestorationStage {
    let name: String
    let instance: PluginInstance

    func propose(_ request: RestorationRequest, trace: inout [StageVerdict], depth: Int) -> Candidate? {
        let view = PluginTimelineView.of(request.index)
        var timeline = view.timeline
        let methodCapacity = 64
        let explanationCapacity = 512
        var method = [CChar](repeating: 0, count: methodCapacity)
        var explanation = [CChar](repeating: 0, count: explanationCapacity)
        var raw = timeline_plugin_candidate()
        let answered: Int32 = method.withUnsafeMutableBufferPointer { methodBuffer in
            explanation.withUnsafeMutableBufferPointer { explanationBuffer in
                raw.method = methodBuffer.baseAddress
                raw.method_capacity = Int64(methodCapacity)
                raw.explanation = explanationBuffer.baseAddress
                raw.explanation_capacity = Int64(explanationCapacity)
                return withUnsafePointer(to: &timeline) { timelinePointer in
                    SnapshotMarshal.with(request.snapshot) { snapshot in
                        var pluginRequest = timeline_plugin_request(timeline: timelinePointer, snapshot: snapshot)
                        return PluginWatchdog.watch(instance.library.path, "timeline_plugin_propose") {
                            instance.library.propose(instance.handle, &pluginRequest, &raw)
                        }
                    }
                }
            }
        }
        guard answered == 1 else { return nil }
        let methodName = CText.string(method)
        let explanationText = CText.string(explanation)
        guard raw.index >= 0, raw.index < Int64(request.index.count), raw.confidence.isFinite,
            let placement = Self.placement(raw.placement, offset: raw.content_offset)
        else { return nil }
        return Candidate(
            index: Int(raw.index), confidence: raw.confidence,
            method: methodName.isEmpty ? .named(name) : RestorationMethod(rawValue: methodName), placement: placement,
            strategy: name, explanation: explanationText)
    }

    static func placement(_ code: Int32, offset: Double) -> Placement? {
        switch code {
        case Int32(TIMELINE_PLUGIN_PLACEMENT_STAND_IN): .standIn
        case Int32(TIMELINE_PLUGIN_PLACEMENT_POST_AT_TOP): .postAtTop
        case Int32(TIMELINE_PLUGIN_PLACEMENT_CONTENT_OFFSET): offset.isFinite ? .contentOffset(offset) : nil
        case Int32(TIMELINE_PLUGIN_PLACEMENT_TOP_OF_TIMELINE): .topOfTimeline
        default: nil
        }
    }
}

/// A plugin's instance handle, released with `timeline_plugin_free` when the last stage that
/// uses it goes.
// @unchecked: the library and the instance handle never change; the ABI asks an instance's propose to be callable from any thread.
final class PluginInstance: @unchecked Sendable {
    let library: PluginLibrary
    let handle: UnsafeMutableRawPointer

    init(library: PluginLibrary, handle: UnsafeMutableRawPointer) {
        self.library = library
        self.handle = handle
    }

    deinit {
        PluginWatchdog.watch(library.path, "timeline_plugin_free") { library.free(handle) }
    }
}

/// The snapshot as the C ABI gives it, for the duration of one call.
enum SnapshotMarshal {
    static func with<R>(_ snapshot: PositionSnapshot?, _ body: (UnsafePointer<timeline_plugin_snapshot>?) -> R) -> R {
        guard let snapshot else { return body(nil) }
        // Every string the struct points to lives in one buffer for the call.
        var strings: [String] = [snapshot.postId, snapshot.text ?? "", snapshot.author ?? ""]
        strings += snapshot.neighbors.above
        strings += snapshot.neighbors.below
        var bytes: [CChar] = []
        var ranges: [(Int, Int)] = []
        for string in strings {
            let start = bytes.count
            bytes.append(contentsOf: string.utf8.map { CChar(bitPattern: $0) })
            ranges.append((start, bytes.count - start))
        }
        return bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress
            func string(_ number: Int) -> timeline_plugin_string {
                let (start, length) = ranges[number]
                return timeline_plugin_string(bytes: length > 0 ? base.map { $0 + start } : nil, length: Int64(length))
            }
            let above = (0..<snapshot.neighbors.above.count).map { string(3 + $0) }
            let below = (0..<snapshot.neighbors.below.count).map { string(3 + snapshot.neighbors.above.count + $0) }
            return above.withUnsafeBufferPointer { aboveBuffer in
                below.withUnsafeBufferPointer { belowBuffer in
                    var raw = timeline_plugin_snapshot(
                        post_id: string(0),
                        has_post_created_at: snapshot.postCreatedAt == nil ? 0 : 1,
                        post_created_at: snapshot.postCreatedAt?.timeIntervalSince1970 ?? 0,
                        viewport_y: snapshot.viewportY, content_offset: snapshot.contentOffset,
                        index: Int64(snapshot.index ?? -1), timeline_count: Int64(snapshot.timelineCount ?? -1),
                        text: snapshot.text == nil ? timeline_plugin_string() : string(1),
                        author: snapshot.author == nil ? timeline_plugin_string() : string(2),
                        neighbors_above: aboveBuffer.baseAddress, neighbors_above_count: Int64(above.count),
                        neighbors_below: belowBuffer.baseAddress, neighbors_below_count: Int64(below.count))
                    return withUnsafePointer(to: &raw) { body($0) }
                }
            }
        }
    }
}

/// Text a plugin wrote into a buffer the engine gave it.
enum CText {
    /// The UTF-8 before the first NUL (or the whole buffer, when the plugin wrote no NUL).
    static func string(_ buffer: [CChar]) -> String {
        let end = buffer.firstIndex(of: 0) ?? buffer.count
        return String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
