import Foundation
import TimelineCore

/// Watches scrolling and the app's lifecycle, captures position snapshots and keeps their
/// history.
///
/// - The **anchor** is the first post from the top whose visible fraction (its height inside
///   `[offset, offset + viewportHeight]` over its height) is at least `anchorVisibilityThreshold`.
/// - **Autosave**: on a scroll, when `autoSaveInterval` seconds have passed since the last save
///   of either kind (or nothing was saved yet); always on `background`, capturing the anchor at
///   the last scroll offset against the current timeline (a background with no scroll since
///   launch saves nothing); never on `terminate`. The clock carries across relaunches.
/// - **History**: at most `maxHistorySize` snapshots, newest first, one per post.
/// - The live anchor (the last scroll observation) does not survive a relaunch, and is stale
///   after `anchorMaxAge` seconds.
///
/// A value type: the `TimelineEngine` façade serialises access to it.
public struct PositionTracker: Sendable {
    public enum Lifecycle: String, Sendable, CaseIterable {
        case background, foreground, terminate, launch
    }

    public struct Settings: Sendable, Equatable {
        public var autoSaveInterval: Double
        public var maxHistorySize: Int
        public var anchorVisibilityThreshold: Double
        public var anchorMaxAge: Double
        /// How many neighbours to record on each side (NeighborAnchor's default Depth).
        public var neighborCount: Int

        public init(autoSaveInterval: Double = 5, maxHistorySize: Int = 10, anchorVisibilityThreshold: Double = 0.3,
                    anchorMaxAge: Double = 30, neighborCount: Int = 5) {
            self.autoSaveInterval = autoSaveInterval
            self.maxHistorySize = maxHistorySize
            self.anchorVisibilityThreshold = anchorVisibilityThreshold
            self.anchorMaxAge = anchorMaxAge
            self.neighborCount = neighborCount
        }
    }

    public var settings: Settings
    public var deviceId: String?
    /// Saved snapshots, newest first, one per post.
    public private(set) var history: [PositionSnapshot] = []
    /// The snapshot of the last scroll observation, until the next launch.
    public private(set) var liveAnchor: PositionSnapshot?
    public private(set) var lastScrollAt: Date?
    public private(set) var lastSaveAt: Date?
    private var lastScrollOffset: Double?
    private var lastViewportHeight: Double?
    /// True when a launch came after the last scroll.
    public private(set) var launchedSinceLastScroll = false

    public init(settings: Settings = Settings(), deviceId: String? = nil) {
        self.settings = settings
        self.deviceId = deviceId
    }

    /// The anchor's display index at `offset`, if the timeline has posts.
    public func anchorIndex(offset: Double, viewportHeight: Double, in index: TimelineIndex) -> Int? {
        guard var candidate = index.index(atOffset: max(0, offset)) else { return nil }
        let bottom = offset + viewportHeight
        while candidate < index.count {
            let top = index.y(of: candidate), height = index.y(of: candidate + 1) - top
            if top >= bottom { break }
            let visible = min(top + height, bottom) - max(top, offset)
            if height > 0, visible / height >= settings.anchorVisibilityThreshold { return candidate }
            candidate += 1
        }
        return index.index(atOffset: max(0, offset))
    }

    /// A snapshot of the reader at `offset` against `index`.
    public func capture(offset: Double, viewportHeight: Double, in index: TimelineIndex, at date: Date) -> PositionSnapshot? {
        guard let anchor = anchorIndex(offset: offset, viewportHeight: viewportHeight, in: index) else { return nil }
        let posts = index.posts
        let post = posts[anchor]
        let count = settings.neighborCount
        return PositionSnapshot(
            postId: post.id, postCreatedAt: post.createdAt, viewportY: index.y(of: anchor) - offset, contentOffset: offset,
            viewportHeight: viewportHeight, index: anchor, timelineCount: index.count,
            neighbors: .init(above: (max(0, anchor - count)..<anchor).reversed().map { posts[$0].id },
                             below: (anchor + 1..<min(index.count, anchor + 1 + count)).map { posts[$0].id }),
            text: post.text, savedAt: date, deviceId: deviceId)
    }

    /// A scroll observation. Returns the snapshot if it was autosaved.
    @discardableResult
    public mutating func observeScroll(offset: Double, viewportHeight: Double, in index: TimelineIndex, at date: Date) -> PositionSnapshot? {
        lastScrollAt = date
        lastScrollOffset = offset
        lastViewportHeight = viewportHeight
        launchedSinceLastScroll = false
        liveAnchor = capture(offset: offset, viewportHeight: viewportHeight, in: index, at: date)
        guard let liveAnchor else { return nil }
        if let lastSaveAt, date.timeIntervalSince(lastSaveAt) < settings.autoSaveInterval { return nil }
        save(liveAnchor, at: date)
        return liveAnchor
    }

    /// A lifecycle event. `index` is the current timeline, needed for `background`. Returns the
    /// snapshot if one was saved.
    @discardableResult
    public mutating func observe(_ event: Lifecycle, at date: Date, in index: TimelineIndex? = nil) -> PositionSnapshot? {
        switch event {
        case .background:
            guard !launchedSinceLastScroll, let offset = lastScrollOffset, let height = lastViewportHeight, let index,
                  let snapshot = capture(offset: offset, viewportHeight: height, in: index, at: date) else { return nil }
            save(snapshot, at: date)
            return snapshot
        case .launch:
            liveAnchor = nil
            launchedSinceLastScroll = true
            return nil
        case .foreground, .terminate:
            return nil
        }
    }

    /// The snapshot a restore at `date` starts from: the most recent saved one after a relaunch;
    /// otherwise the live anchor if it is at most `anchorMaxAge` old, else the most recent saved.
    public func restoreInput(at date: Date) -> PositionSnapshot? {
        if launchedSinceLastScroll { return history.first }
        if let liveAnchor, let lastScrollAt, date.timeIntervalSince(lastScrollAt) <= settings.anchorMaxAge { return liveAnchor }
        return history.first
    }

    /// Adds a snapshot to the history (newest first, one per post, bounded).
    public mutating func save(_ snapshot: PositionSnapshot, at date: Date) {
        lastSaveAt = date
        history.removeAll { $0.postId == snapshot.postId }
        history.insert(snapshot, at: 0)
        if history.count > settings.maxHistorySize { history.removeLast(history.count - settings.maxHistorySize) }
    }

    /// Replaces the history (for example with one loaded from storage).
    public mutating func restoreHistory(_ snapshots: [PositionSnapshot]) {
        history = []
        for snapshot in snapshots.reversed() { save(snapshot, at: snapshot.savedAt ?? Date(timeIntervalSince1970: 0)) }
        lastSaveAt = snapshots.compactMap(\.savedAt).max()
    }
}
