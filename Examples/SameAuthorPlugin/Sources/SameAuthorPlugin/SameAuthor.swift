import Foundation
import TimelineEngineCPlugin

/// SameAuthor: when the saved post is gone, the saved author's post created closest in time to
/// it, within `Window` seconds, found by walking the time order outward from the saved time
/// (nearer side first, at most `MaxVisited` posts). The same algorithm as the built-in
/// AuthorRun, here behind the C ABI, so the two can be compared.
final class SameAuthor {
    let window: Double
    let maxVisited: Int

    init(window: Double, maxVisited: Int) {
        self.window = window
        self.maxVisited = maxVisited
    }

    /// The proposal for one request, or nil.
    func propose(_ timeline: timeline_plugin_timeline, _ snapshot: timeline_plugin_snapshot) -> (index: Int, delta: Double)? {
        guard snapshot.author.length > 0, snapshot.has_post_created_at != 0, timeline.count > 0 else { return nil }
        // The saved post must be gone: this strategy only stands in for it.
        guard timeline.index_of(timeline.context, snapshot.post_id.bytes, snapshot.post_id.length) < 0 else { return nil }
        let count = Int(timeline.count)
        let order = timeline.time_order!
        let times = timeline.created_at!
        let target = snapshot.post_created_at
        // The first time-order position at or after the saved time.
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if times[Int(order[middle])] < target { low = middle + 1 } else { high = middle }
        }
        var below = low - 1
        var above = low
        var best: (index: Int, delta: Double)?
        var visited = 0
        while visited < maxVisited {
            let deltaBelow = below >= 0 ? target - times[Int(order[below])] : .infinity
            let deltaAbove = above < count ? times[Int(order[above])] - target : .infinity
            let delta = min(deltaBelow, deltaAbove)
            guard delta <= window, best.map({ delta <= $0.delta }) ?? true else { break }
            let position: Int
            if deltaAbove <= deltaBelow {
                position = above
                above += 1
            } else {
                position = below
                below -= 1
            }
            visited += 1
            let candidate = Int(order[position])
            if hasAuthor(timeline, candidate, snapshot.author), best.map({ delta < $0.delta || candidate > $0.index }) ?? true {
                best = (candidate, delta)
            }
        }
        return best
    }

    private func hasAuthor(_ timeline: timeline_plugin_timeline, _ index: Int, _ author: timeline_plugin_string) -> Bool {
        let start = timeline.author_offsets[index]
        let end = timeline.author_offsets[index + 1]
        guard end - start == author.length else { return false }
        return memcmp(timeline.author_bytes + Int(start), author.bytes, Int(author.length)) == 0
    }
}

/// Copies `text` into a buffer the engine provided, NUL-terminated and truncated to fit.
func write(_ text: String, to buffer: UnsafeMutablePointer<CChar>?, capacity: Int64) {
    guard let buffer, capacity > 0 else { return }
    let bytes = Array(text.utf8.prefix(Int(capacity) - 1))
    for (offset, byte) in bytes.enumerated() { buffer[offset] = CChar(bitPattern: byte) }
    buffer[bytes.count] = 0
}

func describe(_ seconds: Double) -> String {
    if seconds < 120 { return "\(Int(seconds.rounded())) s" }
    if seconds < 7200 { return "\(Int((seconds / 60).rounded())) min" }
    return "\(Int((seconds / 3600).rounded())) h"
}
