import Foundation
import TimelineEngineCore

/// Builds the "Continue reading?" choices: a ranked list without duplicates, with titles and
/// descriptions a person wants to read.
///
/// - "Continue where you left off · 2 h ago": the restoration itself.
/// - "Continue from laptop · 3 min ago": another device's last position, when it was saved
///   after this device's (the reader went on reading there).
/// - "Posts from around 14:05": the post closest in time to the saved one, when it differs.
/// - "Earlier: @author's post": older positions from the history that are still in the timeline.
/// - "Jump to newest": the newest post, last.
public struct SuggestionBuilder: Sendable {
    public var timeZone: TimeZone

    public init(timeZone: TimeZone = .current) {
        self.timeZone = timeZone
    }

    public func suggestions(
        restoration: Restoration?, snapshot: PositionSnapshot?, history: [PositionSnapshot],
        index: TimelineIndex, now: Date, otherDevices: [PositionSnapshot] = [],
        ownReplaced: PositionSnapshot? = nil, offered: [PositionSnapshot] = []
    ) -> [RestorationSuggestion] {
        var result: [RestorationSuggestion] = []
        func add(_ suggestion: RestorationSuggestion) {
            if !result.contains(where: { $0.postId == suggestion.postId }) { result.append(suggestion) }
        }
        if let restoration {
            var title = "Continue where you left off"
            if let saved = snapshot?.savedAt { title += " · " + SuggestionBuilder.relative(now.timeIntervalSince(saved)) }
            add(
                RestorationSuggestion(
                    title: title, description: describe(index, restoration.index) + " — " + restoration.explanation,
                    postId: restoration.postId, index: restoration.index, confidence: restoration.confidence))
        }
        // The positions the merge policy offers where two devices' reading diverged.
        for other in offered {
            guard let found = index.index(of: other.postId) else { continue }
            let age = other.savedAt.map { " · " + SuggestionBuilder.relative(now.timeIntervalSince($0)) } ?? ""
            add(
                RestorationSuggestion(
                    title: "Continue from \(other.deviceId ?? "another device")\(age)", description: describe(index, found),
                    postId: other.postId, index: found, confidence: 0.9))
        }
        let latestHere = snapshot?.savedAt ?? history.first?.savedAt ?? .distantPast
        for other in otherDevices.sorted(by: { ($0.savedAt ?? .distantPast) > ($1.savedAt ?? .distantPast) }) {
            guard let saved = other.savedAt, saved > latestHere, let found = index.index(of: other.postId) else { continue }
            let device = other.deviceId ?? "another device"
            add(
                RestorationSuggestion(
                    title: "Continue from \(device) · " + SuggestionBuilder.relative(now.timeIntervalSince(saved)),
                    description: describe(index, found), postId: other.postId, index: found, confidence: 0.9))
        }
        // When another device's position replaced this device's own, the own stays on offer.
        if let own = ownReplaced, let found = index.index(of: own.postId) {
            let age = own.savedAt.map { " · " + SuggestionBuilder.relative(now.timeIntervalSince($0)) } ?? ""
            add(
                RestorationSuggestion(
                    title: "Where you were on this device\(age)", description: describe(index, found), postId: own.postId,
                    index: found, confidence: 0.5))
        }
        if let created = snapshot?.postCreatedAt, index.count > 0 {
            let position = min(index.timeOrderPosition(atOrAfter: created), index.count - 1)
            let closest = index.displayIndex(atTimeOrderPosition: position)
            let delta = abs(index.posts[closest].createdAt.timeIntervalSince(created))
            add(
                RestorationSuggestion(
                    title: "Posts from around \(clock(created))", description: describe(index, closest),
                    postId: index.posts[closest].id, index: closest,
                    confidence: max(0.05, 0.6 * (1 - min(1, delta / 3600)))))
        }
        for older in history.dropFirst() {
            guard let found = index.index(of: older.postId) else { continue }
            let age = older.savedAt.map { " · " + SuggestionBuilder.relative(now.timeIntervalSince($0)) } ?? ""
            add(
                RestorationSuggestion(
                    title: "Earlier position\(age)", description: describe(index, found), postId: older.postId,
                    index: found, confidence: 0.4))
        }
        if let newest = index.newestIndex {
            add(
                RestorationSuggestion(
                    title: "Jump to newest", description: describe(index, newest), postId: index.posts[newest].id,
                    index: newest, confidence: 0.1))
        }
        let ranked = result.enumerated().sorted { a, b in
            a.element.confidence != b.element.confidence ? a.element.confidence > b.element.confidence : a.offset < b.offset
        }
        return ranked.map(\.element)
    }

    func describe(_ index: TimelineIndex, _ position: Int) -> String {
        let post = index.posts[position]
        var text = post.author.map { "@\($0)" } ?? "A post"
        text += " at \(clock(post.createdAt))"
        if let body = post.text?.split(separator: "\n").first {
            let snippet = body.prefix(60)
            text += ": “\(snippet)\(body.count > 60 ? "…" : "")”"
        }
        return text
    }

    func clock(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// "just now", "5 min ago", "2 h ago", "3 days ago".
    public static func relative(_ seconds: Double) -> String {
        if seconds < 60 { return "just now" }
        if seconds < 3600 { return "\(Int(seconds / 60)) min ago" }
        if seconds < 86_400 { return "\(Int(seconds / 3600)) h ago" }
        let days = Int(seconds / 86_400)
        return "\(days) day\(days == 1 ? "" : "s") ago"
    }
}
