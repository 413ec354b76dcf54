import Foundation
import TimelineEngineKit

// What the README's "Embedding it in an app" lines take from the app around them (main.swift is
// those lines, word for word): a configuration, a folder for the store, the timeline shown, where
// the reader scrolled, and what the app does with the result.
//
//   embedding-demo CONFIG TIMELINE FOLDER

let arguments = CommandLine.arguments
let configURL = URL(fileURLWithPath: arguments.count > 1 ? arguments[1] : "config/SocialFusionTimelineConfiguration.plist")
let appSupport = URL(fileURLWithPath: arguments.count > 3 ? arguments[3] : NSTemporaryDirectory(), isDirectory: true)
let shown: Timeline = {
    let path = arguments.count > 2 ? arguments[2] : "Tests/Fixtures/restore/timeline.jsonl"
    guard let data = FileManager.default.contents(atPath: path), let timeline = try? TimelineFormat.read(data) else {
        FileHandle.standardError.write(Data("embedding-demo: cannot read the timeline \(path)\n".utf8))
        exit(1)
    }
    return Timeline(posts: timeline.posts, viewportHeight: 812)
}()
/// The timeline the reader scrolls.
let index = TimelineIndex(shown)
/// Where they scrolled to: ten posts down.
let y = index.clamp(offset: index.y(of: min(10, shown.posts.count - 1)))
/// The timeline after a refresh: two new posts on top.
let refreshedIndex = TimelineIndex(
    Timeline(
        posts: [Post(id: "new-1", createdAt: Date(), text: "new"), Post(id: "new-2", createdAt: Date(), text: "newer")] + shown.posts,
        viewportHeight: 812))

func scroll(to offset: Double) {
    print("restored silently at offset \(offset)")
}

func offer(_ suggestions: [RestorationSuggestion]) {
    print("offered: \(suggestions.map(\.postId))")
}
