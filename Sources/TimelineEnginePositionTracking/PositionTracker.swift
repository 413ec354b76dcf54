import Foundation
import TimelineEngineConfiguration
import TimelineEngineCore

/// Watches scrolling and the app's lifecycle, captures position snapshots and keeps their
/// history.
///
/// - The **anchor** is the first post from the top whose visible fraction (its height inside
///   `[offset, offset + viewportHeight]` over its height) is at least `anchorVisibilityThreshold`.
/// - **Autosave** is a throttle with a leading and a trailing edge, as apps save when scrolling
///   comes to rest:
///   - on a scroll, when `autoSaveInterval` seconds have passed since the last save of either
///     kind (or nothing was saved yet);
///   - once scrolling has rested for `settleDelay` seconds, the last scroll position is saved
///     (the *trailing* save), unless it was saved already. Time only moves with the events, so
///     a save that came due is made by the next call (`settle(at:)`, or any observation);
///   - always on `background`, capturing the anchor at the last scroll offset against the
///     current timeline (without a timeline, the last scroll's snapshot; a background with no
///     scroll since launch saves nothing);
///   - never on `terminate`: a trailing save that came due before it was made, one that did not
///     is lost with the process, as is any pending save at a `launch`.
///
///   The clock carries across relaunches.
/// - **History**: at most `maxHistorySize` snapshots, newest first, one per post.
/// - The **live anchor** (the last scroll observation) is the reader's place while the app stays
///   in the foreground, however long the reader rests on it. It does not survive a relaunch,
///   and it expires when the app stays in the background longer than `anchorMaxAge`: a return
///   after that starts from the saved snapshot, as an anchor whose screen is gone (Catbird's
///   30 s expiry of an anchor captured for a refresh that never came).
///
/// - The **visit** starts when the app is launched or comes to the foreground; its first
///   scroll's anchor is where it started. `visit(of:at:in:)` says how long a save came after
///   the start and how many posts were read since: the more of the distance from where it
///   started and the posts the anchor rested on for `readingDwell` seconds or more beyond the
///   first, so a reader who flicked up to the new posts and read back down has read them. A
///   save seconds after opening that read little is a glance at a stale device, not reading
///   (sync's merge policy tells them apart).
///
/// A value type: the `TimelineEngine` façade serialises access to it.
public struct PositionTracker: Sendable {
    /// What the app tells the tracker of its lifecycle: going to the background, coming back, being
    /// terminated, and launching.
    public enum Lifecycle: String, Sendable, CaseIterable {
        case background, foreground, terminate, launch
    }

    /// The configuration the tracker saves by: the autosave interval, the settle delay, how much
    /// history it keeps.
    public struct Settings: Sendable, Equatable {
        /// Seconds between two saves while the reader keeps scrolling (`AutoSaveInterval`).
        public var autoSaveInterval: Double
        /// Seconds scrolling must rest before the last position is saved (`AutoSaveSettleDelay`).
        public var settleDelay: Double
        public var maxHistorySize: Int
        public var anchorVisibilityThreshold: Double
        /// Seconds in the background after which the live anchor expires (`AnchorMaxAge`).
        public var anchorMaxAge: Double
        /// How many neighbours to record on each side (NeighborAnchor's default Depth).
        public var neighborCount: Int

        /// Settings given here; the others at their configuration keys' defaults.
        public init(
            autoSaveInterval: Double = PositionPersistenceSettings().autoSaveInterval,
            settleDelay: Double = PositionPersistenceSettings().autoSaveSettleDelay,
            maxHistorySize: Int = PositionPersistenceSettings().maxHistorySize,
            anchorVisibilityThreshold: Double = RestorationSettings().anchorVisibilityThreshold,
            anchorMaxAge: Double = RestorationSettings().anchorMaxAge, neighborCount: Int = 5
        ) {
            self.autoSaveInterval = autoSaveInterval
            self.settleDelay = settleDelay
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
    /// The last scroll's snapshot while it waits for its trailing save.
    public private(set) var pendingSave: PositionSnapshot?
    private var lastScrollOffset: Double?
    private var lastViewportHeight: Double?
    /// True when a launch came after the last scroll.
    public private(set) var launchedSinceLastScroll = false
    /// When the app went to the background, while it is there.
    public private(set) var backgroundedAt: Date?
    /// True when the app stayed in the background longer than `anchorMaxAge` since the last scroll.
    private var anchorExpiredInBackground = false
    /// When the current visit started (the last launch or return to the foreground), and the
    /// post its first scroll anchored on, with that post's index then.
    public private(set) var visitStartedAt: Date?
    public private(set) var visitStart: (postId: String, index: Int)?
    /// The posts of the current visit the anchor rested on for `readingDwell` seconds or more.
    private var visitRestedPosts: Set<String> = []
    /// The current anchor of the visit and since when it has been the anchor.
    private var visitAnchor: (postId: String, since: Date)?
    /// Seconds the anchor must rest on a post for the post to count as read in a visit: a
    /// fling's intermediate scrolls pass posts no one read.
    public static let readingDwell: Double = 1
    /// The posts that passed through the viewport: between two scrolls on the same timeline
    /// index the view passed every post between them; after the timeline changed, only those
    /// shown. What "N new above you" counts against (`UnreadCount`).
    public var readPosts = ReadPosts()
    /// The posts read since the app last took them (`takeUnsavedReads()`), to be stored.
    public private(set) var unsavedReads: [Post] = []
    /// The last scroll that marked posts read: its timeline index (held, so that its identity
    /// is not reused by another) and offset.
    private var lastRead: (index: TimelineIndex, offset: Double)?

    /// A save's place in its visit: seconds since the visit started, and posts read since its
    /// first scroll (the distance from there, or the posts rested on beyond the first when more).
    public struct Visit: Sendable, Equatable {
        public var seconds: Double
        public var posts: Int

        public init(seconds: Double, posts: Int) {
            self.seconds = seconds
            self.posts = posts
        }
    }

    public init(settings: Settings = Settings(), deviceId: String? = nil) {
        self.settings = settings
        self.deviceId = deviceId
    }

    /// The anchor's display index at `offset`, if the timeline has posts.
    public func anchorIndex(offset: Double, viewportHeight: Double, in index: TimelineIndex) -> Int? {
        guard var candidate = index.index(atOffset: max(0, offset)) else { return nil }
        let bottom = offset + viewportHeight
        while candidate < index.count {
            let top = index.y(of: candidate)
            let height = index.y(of: candidate + 1) - top
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
            neighbors: .init(
                above: (max(0, anchor - count)..<anchor).reversed().map { posts[$0].id },
                below: (anchor + 1..<min(index.count, anchor + 1 + count)).map { posts[$0].id }),
            text: post.text, author: post.author, savedAt: date, deviceId: deviceId)
    }

    /// When the pending trailing save is due: `settleDelay` after the last scroll. Nil when
    /// nothing is pending.
    public var pendingSaveDue: Date? {
        guard pendingSave != nil, let lastScrollAt else { return nil }
        return lastScrollAt.addingTimeInterval(settings.settleDelay)
    }

    /// Makes the trailing save if it is due at `date`. Returns the snapshot it saved.
    @discardableResult
    public mutating func settle(at date: Date) -> PositionSnapshot? {
        guard let pending = pendingSave, let due = pendingSaveDue, due <= date else { return nil }
        save(pending, at: due)
        return pending
    }

    /// Makes the trailing save now, whether or not scrolling has rested for the settle delay:
    /// the app knows scrolling ended. Returns the snapshot it saved; nil when nothing is pending.
    @discardableResult
    public mutating func settleNow(at date: Date) -> PositionSnapshot? {
        guard let pending = pendingSave else { return nil }
        let due = pendingSaveDue.map { min($0, date) } ?? date
        save(pending, at: due)
        return pending
    }

    /// A scroll observation. Returns the snapshots saved, oldest first: a trailing save that
    /// came due before it, and this scroll's own when the interval has passed.
    @discardableResult
    public mutating func observeScroll(offset: Double, viewportHeight: Double, in index: TimelineIndex, at date: Date) -> [PositionSnapshot] {
        var saved = settle(at: date).map { [$0] } ?? []
        // An offset or viewport out of `GeometryLimits` (infinite, NaN) is no position: ignored.
        guard GeometryLimits.problem(withOffset: offset) == nil, GeometryLimits.problem(withViewportSize: viewportHeight) == nil else {
            return saved
        }
        lastScrollAt = date
        lastScrollOffset = offset
        lastViewportHeight = viewportHeight
        launchedSinceLastScroll = false
        anchorExpiredInBackground = false
        markRead(offset: offset, viewportHeight: viewportHeight, in: index)
        let previous = liveAnchor
        liveAnchor = capture(offset: offset, viewportHeight: viewportHeight, in: index, at: date)
        if let previous, let now = liveAnchor?.index, let before = index.index(of: previous.postId), now != before {
            let counted = ReadingDirection.countedMove(posts: Int(clamping: (now &- before).magnitude))
            if now > before { scrollMoves.down &+= counted } else { scrollMoves.up &+= counted }
        }
        pendingSave = liveAnchor
        if visitStartedAt != nil, visitStart == nil, let liveAnchor, let position = liveAnchor.index { visitStart = (liveAnchor.postId, position) }
        if visitStartedAt != nil, let liveAnchor { noteVisitAnchor(liveAnchor.postId, at: date) }
        guard let liveAnchor else { return saved }
        if let lastSaveAt, date.timeIntervalSince(lastSaveAt) < settings.autoSaveInterval { return saved }
        save(liveAnchor, at: date)
        saved.append(liveAnchor)
        return saved
    }

    /// Records that the anchor is on `postId` from `date`: the post it leaves counts as read in
    /// the visit when it rested there `readingDwell` seconds or more.
    private mutating func noteVisitAnchor(_ postId: String, at date: Date) {
        if let current = visitAnchor {
            guard current.postId != postId else { return }
            if date.timeIntervalSince(current.since) >= Self.readingDwell { visitRestedPosts.insert(current.postId) }
        }
        visitAnchor = (postId, date)
    }

    /// Starts a visit at `date`: nothing read in it yet.
    private mutating func startVisit(at date: Date) {
        visitStartedAt = date
        visitStart = nil
        visitRestedPosts = []
        visitAnchor = nil
    }

    /// Marks read the posts the viewport passed to reach `offset`: from the last scroll's
    /// offset when it was on the same index, else those shown at `offset`.
    private mutating func markRead(offset: Double, viewportHeight: Double, in index: TimelineIndex) {
        guard index.count > 0 else { return }
        var (low, high) = (offset, offset)
        if let lastRead, lastRead.index === index { (low, high) = (min(low, lastRead.offset), max(high, lastRead.offset)) }
        lastRead = (index, offset)
        guard let first = index.index(atOffset: max(0, low)) else { return }
        var position = first
        while position < index.count, index.y(of: position) < high + viewportHeight {
            if readPosts.insert(postAt: position, of: index) { unsavedReads.append(index.posts[position]) }
            position += 1
        }
    }

    /// The posts read since the last call, for the store; none are kept after.
    public mutating func takeUnsavedReads() -> [Post] {
        defer { unsavedReads = [] }
        return unsavedReads
    }

    /// The app put the reader at `offset` itself (a restore it applied, a suggestion taken)
    /// without a scroll being observed: the reader is there now, so the live anchor and the next
    /// background save are that place, not the last scroll's. Nothing is saved by it: it is no
    /// reading, and it counts no move.
    public mutating func placed(offset: Double, viewportHeight: Double, in index: TimelineIndex, at date: Date) {
        guard GeometryLimits.problem(withOffset: offset) == nil, GeometryLimits.problem(withViewportSize: viewportHeight) == nil,
            let anchor = capture(offset: offset, viewportHeight: viewportHeight, in: index, at: date)
        else { return }
        lastScrollOffset = offset
        lastViewportHeight = viewportHeight
        launchedSinceLastScroll = false
        anchorExpiredInBackground = false
        liveAnchor = anchor
        pendingSave = nil
        if visitStartedAt != nil { noteVisitAnchor(anchor.postId, at: date) }
    }

    /// A lifecycle event. `index` is the current timeline, needed for `background`. Returns the
    /// snapshots saved, oldest first.
    @discardableResult
    public mutating func observe(_ event: Lifecycle, at date: Date, in index: TimelineIndex? = nil) -> [PositionSnapshot] {
        var saved = event == .launch ? [] : (settle(at: date).map { [$0] } ?? [])
        switch event {
        case .background:
            if backgroundedAt == nil { backgroundedAt = date }
            if !launchedSinceLastScroll, let offset = lastScrollOffset, let height = lastViewportHeight, let index,
                let snapshot = capture(offset: offset, viewportHeight: height, in: index, at: date)
            {
                save(snapshot, at: date)
                saved.append(snapshot)
            } else if let pending = pendingSave {
                // No timeline given: the last scroll's own snapshot stands for it.
                save(pending, at: date)
                saved.append(pending)
            }
            pendingSave = nil
        case .foreground:
            if let backgroundedAt, date.timeIntervalSince(backgroundedAt) > settings.anchorMaxAge { anchorExpiredInBackground = true }
            backgroundedAt = nil
            startVisit(at: date)
        case .terminate:
            pendingSave = nil
        case .launch:
            pendingSave = nil
            liveAnchor = nil
            backgroundedAt = nil
            launchedSinceLastScroll = true
            startVisit(at: date)
        }
        return saved
    }

    /// Where `snapshot`, saved at `date`, stands in the current visit; nil outside a visit (no
    /// launch or foreground was observed). Its posts are the more of two counts: the distance
    /// from the visit's first post (counted in `index` when the visit's first post and the saved
    /// one are both there, else between the indexes recorded at capture), and the posts the
    /// anchor rested on for `readingDwell` seconds or more by `date`, less the first.
    public func visit(of snapshot: PositionSnapshot, at date: Date, in index: TimelineIndex? = nil) -> Visit? {
        guard let visitStartedAt else { return nil }
        var distance = 0
        if let visitStart {
            if let index, let start = index.index(of: visitStart.postId), let position = index.index(of: snapshot.postId) {
                distance = abs(position - start)
            } else if let position = snapshot.index {
                distance = abs(position - visitStart.index)
            }
        }
        var rested = visitRestedPosts.count
        if let visitAnchor, !visitRestedPosts.contains(visitAnchor.postId), date.timeIntervalSince(visitAnchor.since) >= Self.readingDwell {
            rested += 1
        }
        return Visit(seconds: max(0, date.timeIntervalSince(visitStartedAt)), posts: max(distance, rested - 1))
    }

    /// Whether the live anchor has expired by `date`: the app stayed in the background longer
    /// than `anchorMaxAge` since the last scroll.
    public func liveAnchorExpired(at date: Date) -> Bool {
        if anchorExpiredInBackground { return true }
        if let backgroundedAt { return date.timeIntervalSince(backgroundedAt) > settings.anchorMaxAge }
        return false
    }

    /// The snapshot a restore at `date` starts from: the most recent saved one after a relaunch
    /// or once the live anchor has expired; otherwise the live anchor. A trailing save due by
    /// `date` counts as saved.
    public func restoreInput(at date: Date) -> PositionSnapshot? {
        if !launchedSinceLastScroll, let liveAnchor, !liveAnchorExpired(at: date) { return liveAnchor }
        if let pendingSave, let due = pendingSaveDue, due <= date { return pendingSave }
        return history.first
    }

    /// `restoreInput(at:)`, and whether it is the live anchor: the reader is on this device now.
    public func restoreInputWithLiveness(at date: Date) -> (snapshot: PositionSnapshot?, isLive: Bool) {
        if !launchedSinceLastScroll, let liveAnchor, !liveAnchorExpired(at: date) { return (liveAnchor, true) }
        return (restoreInput(at: date), false)
    }

    /// How far the scrolls moved the anchor down the timeline (to older posts in a newest-first
    /// feed) and how far up, each scroll counting the posts it passed, and a flick or a jump of
    /// more posts than reading moves at once one (`ReadingDirection.countedMove(posts:)`): reading is many small steps one
    /// way, a jump back to the top is one.
    public private(set) var scrollMoves: (down: Int, up: Int) = (0, 0)

    /// The way the reader reads (`ReadingDirection`): down (`older`) when their scrolls moved
    /// the anchor further down than up (`scrollMoves`), `newer` when further up; with no scrolls seen (a
    /// history loaded from storage), the way the saved posts' times moved
    /// (`ReadingDirection.learned(fromHistory:)`). A deleted post's reader goes on in it.
    public var learnedDirection: ReadingDirection? {
        if scrollMoves.down > scrollMoves.up { return .older }
        if scrollMoves.up > scrollMoves.down { return .newer }
        return scrollMoves.down == 0 ? ReadingDirection.learned(fromHistory: history) : nil
    }

    /// Adds a snapshot to the history (newest first, one per post, bounded).
    public mutating func save(_ snapshot: PositionSnapshot, at date: Date) {
        lastSaveAt = date
        if pendingSave == snapshot { pendingSave = nil }
        history.removeAll { $0.postId == snapshot.postId }
        history.insert(snapshot, at: 0)
        if history.count > settings.maxHistorySize { history.removeLast(history.count - settings.maxHistorySize) }
    }

    /// Replaces the history (for example with one loaded from storage).
    public mutating func restoreHistory(_ snapshots: [PositionSnapshot]) {
        let pending = pendingSave
        history = []
        for snapshot in snapshots.reversed() { save(snapshot, at: snapshot.savedAt ?? Date(timeIntervalSince1970: 0)) }
        lastSaveAt = snapshots.compactMap(\.savedAt).max()
        pendingSave = pending
    }
}
