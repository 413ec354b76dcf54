import TimelineEngineKit

let loaded = try ConfigurationLoader().load(contentsOf: configURL)
let store = try await TimelineStore(path: appSupport.appendingPathComponent("timeline.sqlite").path)
let engine = try await TimelineEngine(configuration: loaded.configuration, deviceId: "phone-1", store: store)
Task { await engine.run() }  // saves, timers and sync run here

engine.observeScroll(offset: y, viewportHeight: 812, in: index)  // as the reader scrolls
engine.observe(.background, in: index)  // as the app comes and goes

let result = await engine.restore(in: refreshedIndex)  // after a refresh or a relaunch
if let restoration = result.restoration, result.restoreSilently {
    scroll(to: restoration.contentOffset)  // the same post, at the same pixel
} else {
    offer(result.suggestions)  // "Continue where you left off · 2 h ago"
}
