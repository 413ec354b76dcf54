import Foundation
import TimelineEngineKit

/// The first restore after launch on a cached timeline, as an app makes it through the façade,
/// in a process of its own:
///
///   restore-bench --texts sampled launch-prepare DIR SIZE POSTS.jsonl
///       caches SIZE posts in DIR/store.sqlite and keeps their text index there
///   restore-bench launch DIR present|redrafted|gone [--rebuild]
///       saves a position on a post that is there, one whose post was re-drafted (gone, its
///       text under another id) or one whose post is gone with no copy; then, timed: opens the
///       store, reads the cached timeline, makes its index (mapping the kept text index, or
///       with --rebuild leaving it to be built) and restores.
enum Launch {
    static let scope = StoreScope(account: "bench", timeline: "home")

    static func prepare(directory: String, posts: [Post]) async throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/store.sqlite"
        try? FileManager.default.removeItem(atPath: path)
        let store = try await TimelineStore(path: path)
        var start = now()
        try await store.timelines.saveTimeline(posts, scope: scope, viewportHeight: 800, refreshedAt: Date())
        print(String(format: "cached %d posts in %.0f ms", posts.count, Double(now() - start) / 1e6))
        let cached = try await store.timelines.timeline(scope: scope)!
        let engine = try await TimelineEngine(store: store, scope: scope)
        start = now()
        try await engine.keepIndex(of: engine.index(of: cached), for: cached)
        let size = [".text", ".lookups"].map {
            (try? FileManager.default.attributesOfItem(atPath: store.timelines.indexPath(scope: scope) + $0)[.size] as? Int) ?? 0
        }
        print(
            String(
                format: "made and kept the index in %.0f ms: text %.0f MB, lookups %.0f MB", Double(now() - start) / 1e6, Double(size[0]) / 1e6,
                Double(size[1]) / 1e6))
    }

    static func run(directory: String, situation: String, rebuild: Bool) async throws {
        let path = directory + "/store.sqlite"
        // Not timed: the position the reader left, saved as the previous session would have.
        do {
            let store = try await TimelineStore(path: path)
            let posts = try await store.timelines.timeline(scope: scope)!.posts
            let middle = posts.count / 2
            var snapshot = PositionSnapshot(
                postId: posts[middle].id, postCreatedAt: posts[middle].createdAt, viewportY: -20,
                index: middle, timelineCount: posts.count, text: posts[middle].text, savedAt: Date())
            switch situation {
            case "present": break
            case "redrafted": snapshot.postId = "redrafted-away"
            default:
                snapshot.postId = "gone-for-good"
                snapshot.text = "a post nobody kept, about a quokka and a zeppelin over Reykjavík"
            }
            try await store.positions.saveSnapshot(snapshot, scope: scope)
        }
        let t0 = now()
        let store = try await TimelineStore(path: path)
        let engine = try await TimelineEngine(store: store, scope: scope)
        engine.observe(.launch)
        let cached = try await store.timelines.timeline(scope: scope)!
        let t1 = now()
        let index = rebuild ? TimelineIndex(cached.timeline) : engine.index(of: cached)
        let t2 = now()
        let result = await engine.restore(in: index)
        let t3 = now()
        let method = result.restoration.map { "\($0.method)" } ?? "none"
        print(
            String(
                format: "%@ %@: open and read %d posts %.1f ms, index %.2f ms, first restore %.2f ms (%@), index and restore %.2f ms",
                situation, rebuild ? "rebuilt" : "kept", cached.posts.count, Double(t1 - t0) / 1e6, Double(t2 - t1) / 1e6,
                Double(t3 - t2) / 1e6, method, Double(t3 - t1) / 1e6))
    }
}
