import Foundation
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEnginePositionTracking
import TimelineEngineReachModel
import TimelineEngineRestoration
import TimelineEngineRestorationModel
import TimelineEngineSessionFormat
import TimelineEngineSimulatedServer
import TimelineEngineSyncModel

/// Replays a session's events, exactly as the session format specifies, and stops at each
/// restore point.
///
/// - The timeline is what the `timeline`, `insert`, `remove` and `update` events made it.
/// - The position tracker sees every `scroll` (offset, the header's viewport height, the
///   current timeline) and every lifecycle event: it saves on scrolls every `AutoSaveInterval`
///   seconds and once scrolling has rested for `AutoSaveSettleDelay` (a save due before an
///   event is made before it), saves on `background`, never on `terminate` (a save not yet due
///   is lost), and forgets the live anchor on `launch`.
/// - At a `restore`, the input is the most recent saved snapshot if a `launch` came after the
///   last scroll, or if the app stayed in the background longer than `AnchorMaxAge` since it;
///   otherwise the live anchor; with no snapshot at all, none (the pipeline's fallback
///   applies). The restore itself changes no tracker state; `restored(_:at:)` then puts the
///   reader where the first pipeline landed them, as the façade does after a silent restore.
/// - Devices (format version 2): scrolls, lifecycle events and restores with a `device` go to
///   that device's own tracker (the timeline is shared). Each save a tracker makes is a write to
///   its device's position register (`Register.localWrite`, the store's own rule), numbered by
///   the device's counter, stamped by its hybrid clock (a trailing save when it came due,
///   before any later event), with the register's causal context and the save's place in its
///   visit; `sync` gives device `to` every head device `from` holds. At a restore on a device
///   whose register's value (by the configured merge policy) is another device's write, that
///   position is the input (`synced`), unless the live anchor answers (the reader is on this
///   device now).
/// - A device stamps its writes with its own clock: the event's time plus the header's
///   `clockSkew` for it; a remote stamp more than `Sync.MaxClockOffset` ahead does not move
///   it. A save that repeats the device's head (the same post at the same place,
///   `PositionRecord.isRepeated(by:)`) is no new write, as in the store. A `scroll` with
///   `explicit` makes the device's next save (of a position captured at or after it) an
///   explicit move back: a reset, whose epoch is its own stamp.
/// - Caches (format version 3): the timeline events describe the server's timeline, and each
///   device that has had a `fetch` keeps a cache of its own: the newest `limit` posts, paged,
///   merged into what it cached before, with a gap where they do not meet (`TimelineMerge`).
///   Such a device scrolls and restores on its cache. At a restore whose starting post the
///   cache lacks, the configured reach strategy (`ReplaySettings.reach`) asks the server
///   (`PagedTimeline`, shaped as the header's `api`), counting requests and bytes, and the pages
///   join the cache, as in the app.
/// - Convergence: after each write and each delivery, when every device seen so far holds the
///   same value, every write not yet converged has converged (`convergence`).
public struct SessionReplayer {
    public let header: SessionHeader
    public let settings: ReplaySettings
    public private(set) var timeline: ReplayTimeline
    /// The header device's tracker.
    public private(set) var tracker: PositionTracker
    public private(set) var resume = ResumeState()
    /// The other devices' trackers and resume states.
    public private(set) var otherDevices: [String: (tracker: PositionTracker, resume: ResumeState)] = [:]
    /// Each device's sync state, clock and write counter, when a merge policy applies.
    public private(set) var replicas: [String: Replica] = [:]
    private let mergePolicy: (any MergePolicy)?
    /// The server's timeline as its API pages it (version 3): deleted posts keep their place.
    public private(set) var server: PagedTimeline?
    /// Each device's own cache (version 3), from its first `fetch` on.
    public private(set) var caches: [String: DeviceCache] = [:]
    private let reach: (any ReachStrategy)?

    /// A device's own cache of the server's timeline.
    public struct DeviceCache: Sendable {
        public var posts: [Post] = []
        /// The posts with a gap below them.
        public var gapsBelow: Set<String> = []
        /// Where the last head page ended: its cursor and its last post.
        public var headCursor: String?
        public var headLastPost: String?
        /// The mean time between the last head page's posts (`ReachGoal.spacing(of:)`).
        public var headPageSpacing: TimeInterval?
        /// The posts of the last head page: confirmed by the latest fetch.
        public var headPosts: Set<String> = []
        private var cachedIndex: TimelineIndex?
        /// The index before the last change, whose work the next index reuses.
        private var staleIndex: TimelineIndex?

        mutating func index(viewportHeight: Double) -> TimelineIndex {
            if let cachedIndex { return cachedIndex }
            let built = TimelineIndex(Timeline(posts: posts, viewportHeight: viewportHeight))
            if let staleIndex { UnreadCount.reuseFingerprints(in: built, from: staleIndex) }
            staleIndex = nil
            cachedIndex = built
            return built
        }

        mutating func replace(_ posts: [Post], gapsBelow: Set<String>) {
            self.posts = posts
            self.gapsBelow = gapsBelow
            staleIndex = cachedIndex ?? staleIndex
            cachedIndex = nil
        }
    }
    /// Milliseconds a remote stamp may be ahead of a device's clock and still move it.
    private let maxClockOffset: UInt64
    /// Per device, the time of an `explicit` scroll whose save has not come yet.
    private var explicitSince: [String: Date] = [:]
    /// Every device that has had an event, in order of appearance.
    public private(set) var devices: [String] = []
    /// The device of the last `scroll`: where the reader was last active.
    public private(set) var lastScrollDevice: String?
    /// Restore points so far: a write's episode is the number of restore points before it.
    public private(set) var restoreCount = 0
    /// The times and episodes of writes that not every device holds (or has beaten) yet.
    private var unconvergedWrites: [(at: Date, episode: Int)] = []
    /// Seconds from write to convergence, with the write's episode.
    private var convergedDurations: [(seconds: Double, episode: Int)] = []

    /// One device's sync state.
    public struct Replica: Sendable {
        public var state = ReplicaState()
        public var clock = HybridClock()
        /// The device's last write number.
        public var sequence: UInt64 = 0
        /// What the device has learned of the other devices' clocks.
        public var estimates = ClockEstimates()
    }

    /// A replayer of `header`'s session; the merge policy and the reach strategy are built
    /// through `registry`, and one that cannot be built is an error naming it.
    public init(header: SessionHeader, settings: ReplaySettings, registry: StrategyRegistry = BuiltInStrategies.registry) throws(PipelineError) {
        self.header = header
        self.settings = settings
        timeline = ReplayTimeline(viewportHeight: header.viewport.height)
        tracker = PositionTracker(settings: settings.tracker, deviceId: header.device)
        mergePolicy = try settings.mergePolicy.map { spec throws(PipelineError) in try registry.mergePolicy(spec) }
        maxClockOffset = HybridClock.maxOffset(seconds: settings.maxClockOffset)
        reach = header.version >= SessionHeader.cachesVersion ? try registry.reachStrategy(settings.reach) : nil
    }

    /// The timeline `device` sees: its own cache when it has one (version 3), else the shared one.
    private mutating func index(on device: String) -> TimelineIndex {
        guard caches[device] != nil else { return timeline.index() }
        return caches[device]!.index(viewportHeight: header.viewport.height)
    }

    /// The server of `posts`, paging as the header's `api` and `cursors` say.
    private func newServer(_ posts: [Post]) -> PagedTimeline {
        var server = PagedTimeline(posts: posts, pagesByPost: header.api == .mastodon)
        server.cursors = header.cursors
        return server
    }

    /// Keeps the server's paged timeline in step with a timeline event (version 3).
    private mutating func applyToServer(_ kind: SessionEvent.Kind) {
        guard header.version >= SessionHeader.cachesVersion else { return }
        switch kind {
        case .timeline(_, let posts):
            server = newServer(posts)
        case .insert(let index, let posts):
            // Before the timeline applies it: the post now at `index` is the one they go above;
            // at index 0, the top of the feed, above the posts deleted there too (new posts are
            // newer than every post the server has had, deleted or not, as their ids are).
            if server == nil { server = newServer([]) }
            if index == 0 {
                server?.insert(posts, at: 0)
            } else {
                server?.insert(posts, before: index < timeline.posts.count ? timeline.posts[index].id : nil)
            }
        case .remove(let ids):
            server?.delete(ids)
        case .update(let posts):
            server?.update(posts)
        default:
            break
        }
    }

    /// A device loads the server's newest `limit` posts into its own cache, as the app does: the
    /// head page, then pages from the top until `limit` (the API's page is at most 40 posts on
    /// Mastodon, 100 on Bluesky), merged as one head answer.
    private mutating func fetch(limit: Int, on device: String) {
        let source = server ?? newServer(timeline.posts)
        var page = source.head(limit: min(limit, source.maxPageSize))
        var posts = page.posts
        while posts.count < limit, let cursor = page.cursor, !page.posts.isEmpty {
            page = source.answer(.top(cursor: cursor, limit: min(limit - posts.count, source.maxPageSize)))
            posts += page.posts
        }
        var cache = caches[device] ?? DeviceCache()
        let merge = TimelineMerge(cached: cache.posts, fetched: posts, coverage: .head, cachedGaps: cache.gapsBelow)
        cache.replace(merge.posts, gapsBelow: merge.gapsBelow)
        cache.headCursor = page.cursor
        cache.headLastPost = posts.last?.id
        cache.headPosts = Set(posts.map(\.id))
        cache.headPageSpacing = ReachGoal.spacing(of: posts)
        caches[device] = cache
    }

    /// Reaches `snapshot`'s post for `device` when its cache lacks it, or checks it when the
    /// cache holds it where the last fetch did not confirm it: the requests the reach strategy
    /// makes against the server, and the pages merged into the cache.
    private mutating func reachPost(of snapshot: PositionSnapshot, on device: String, direction: ReadingDirection?) -> RestorePoint.Reach? {
        guard var cache = caches[device], let server, !cache.headPosts.contains(snapshot.postId) else { return nil }
        let cached = cache.posts.contains { $0.id == snapshot.postId }
        guard let reach else { return cached ? nil : RestorePoint.Reach(outcome: .notTried, requests: 0, bytes: 0) }
        var goal = ReachGoal(
            postId: snapshot.postId, postCreatedAt: snapshot.postCreatedAt, pagesByPost: server.pagesByPost,
            maxPageSize: server.maxPageSize, headCursor: cache.headCursor, headLastPost: cache.headLastPost,
            cached: Set(cache.posts.map(\.id)))
        goal.isCached = cached
        goal.headPageSpacing = cache.headPageSpacing
        goal.standIns(of: snapshot, direction: direction ?? .usual, cached: goal.cached, confirmed: cache.headPosts)
        var run = ReachRun(goal: goal, strategy: reach)
        while let request = run.next() { run.record(request, answer: server.answer(request)) }
        if cached, run.requests == 0 { return nil }
        let merged = run.merge(into: cache.posts, gapsBelow: cache.gapsBelow)
        cache.replace(merged.posts, gapsBelow: merged.gapsBelow)
        caches[device] = cache
        var result = RestorePoint.Reach(outcome: run.outcome(seenIn: merged.posts), requests: run.requests, bytes: run.bytes)
        result.checked = cached
        result.findings = run.findings
        return result
    }

    /// The register every device writes: the session's account and timeline.
    private var key: RegisterKey { RegisterKey(account: header.account ?? "default", timeline: header.timeline) }

    /// Runs `body` on the tracker and resume state of `device` (nil: the header's device), and,
    /// when a merge policy applies, records a new save as a register write.
    private mutating func onDevice(_ device: String?, at date: Date, _ body: (inout PositionTracker, inout ResumeState) -> Void) {
        let name = device ?? header.device
        var saved: (PositionSnapshot, PositionTracker.Visit?)?
        let index = self.index(on: name)
        if name == header.device {
            let before = mergePolicy == nil ? nil : tracker.history.first
            body(&tracker, &resume)
            if mergePolicy != nil, let first = tracker.history.first, first != before {
                saved = (first, tracker.visit(of: first, at: date, in: index))
            }
        } else {
            var other = otherDevices[name] ?? (PositionTracker(settings: settings.tracker, deviceId: name), ResumeState())
            let before = mergePolicy == nil ? nil : other.tracker.history.first
            body(&other.tracker, &other.resume)
            otherDevices[name] = other
            if mergePolicy != nil, let first = other.tracker.history.first, first != before {
                saved = (first, other.tracker.visit(of: first, at: date, in: index))
            }
        }
        if let saved { write(saved.0, visit: saved.1, on: name, at: date) }
    }

    /// What `device`'s own clock reads at true time `date`, in milliseconds.
    private func wallClock(of device: String, at date: Date) -> UInt64 {
        let seconds = date.timeIntervalSince1970 + (header.clockSkew[device] ?? 0)
        return seconds > 0 ? UInt64(seconds * 1000) : 0
    }

    private mutating func write(_ snapshot: PositionSnapshot, visit: PositionTracker.Visit?, on device: String, at date: Date) {
        guard mergePolicy != nil else { return }
        var replica = replicas[device] ?? Replica()
        let register = replica.state[key]
        var explicit = false
        if let since = explicitSince[device], (snapshot.savedAt ?? date) >= since {
            explicit = true
            explicitSince[device] = nil
        } else if register.repeats(snapshot, on: device) {
            // Where this device already was: no new write, as the store does.
            return
        }
        let wall = wallClock(of: device, at: date)
        let stamp = RegisterStamp(time: replica.clock.tick(wall: wall), device: device)
        replica.sequence += 1
        let record = register.localWrite(
            snapshot, key: key, stamp: stamp, sequence: replica.sequence,
            savedAt: Date(timeIntervalSince1970: Double(wall) / 1000), explicit: explicit,
            ordered: header.feed == .chronological,
            visit: visit.map { PositionRecord.Visit(seconds: $0.seconds, posts: $0.posts) },
            clocks: replica.estimates.offsets,
            reads: (device == header.device ? tracker : otherDevices[device]?.tracker)?.readPosts.recentDigests(limit: PositionRecord.maximumReads)
                ?? [])
        replica.state.apply(record)
        replicas[device] = replica
        unconvergedWrites.append((date, restoreCount))
        checkConvergence(at: date)
    }

    /// The merge policy's registered name; nil without one.
    public var mergePolicyName: String? { mergePolicy?.name }

    /// `device`'s register as it holds it now; nil without a merge policy or any write.
    public func register(on device: String) -> Register? {
        guard mergePolicy != nil else { return nil }
        return replicas[device]?.state.registers[key]
    }

    /// Why the merge policy offers, or does not offer, each other head on `device` now
    /// (`MergePolicy.offerNotes`).
    public func offerNotes(on device: String) -> [String] {
        guard let mergePolicy, let register = register(on: device) else { return [] }
        return mergePolicy.offerNotes(register, on: device)
    }

    /// `device`'s register value under the merge policy.
    public func value(on device: String) -> PositionRecord? {
        resolution(on: device)?.winner
    }

    /// The merge policy's resolution of `device`'s register, as `device` sees it.
    public func resolution(on device: String) -> Resolution? {
        guard let mergePolicy, let register = replicas[device]?.state.registers[key] else { return nil }
        return mergePolicy.resolve(register, on: device)
    }

    /// Marks every pending write converged when every device seen holds the same winner.
    private mutating func checkConvergence(at date: Date) {
        guard !unconvergedWrites.isEmpty else { return }
        var winner: RegisterStamp?
        for device in devices {
            guard let stamp = value(on: device)?.stamp else { return }
            if let winner, winner != stamp { return }
            winner = stamp
        }
        for written in unconvergedWrites { convergedDurations.append((date.timeIntervalSince(written.at), written.episode)) }
        unconvergedWrites.removeAll()
    }

    /// How long each write took until every device held the same winner, and the writes for
    /// which that had not happened yet, each with its episode: the number of restore points
    /// before the write, so the index of the restore point that follows it.
    public var convergence: (converged: [(seconds: Double, episode: Int)], unconverged: [Int]) {
        (convergedDurations, unconvergedWrites.map(\.episode))
    }

    /// Makes every device's trailing save that came due before `date`, stamped when it came
    /// due, as the app's timer does: a save must not take a later stamp than deliveries that
    /// arrived after it.
    private mutating func settleDueSaves(before date: Date) {
        let index = timeline.index()
        if let due = tracker.pendingSaveDue, due <= date, let saved = tracker.settle(at: date) {
            write(saved, visit: tracker.visit(of: saved, at: due, in: index), on: header.device, at: due)
        }
        for name in otherDevices.keys.sorted() {
            guard var other = otherDevices[name], let due = other.tracker.pendingSaveDue, due <= date,
                let saved = other.tracker.settle(at: date)
            else { continue }
            otherDevices[name] = other
            write(saved, visit: other.tracker.visit(of: saved, at: due, in: index), on: name, at: due)
        }
    }

    private mutating func see(_ device: String?) {
        let name = device ?? header.device
        if !devices.contains(name) { devices.append(name) }
    }

    /// What the app does with a restore, as on the façade (`TimelineEngine.restore(in:)`): where
    /// it restored silently, or the reader took an offered position, the reader is put there, so
    /// that a `background` before any scroll saves that place, not the one before the restore.
    /// The comparison calls it with the first pipeline's evaluation, `engine replay` with its
    /// pipeline's; the other pipelines are scored on the same replay.
    public mutating func restored(_ evaluation: RestoreEvaluation, at point: RestorePoint) {
        guard let landing = evaluation.restoration, evaluation.restoresSilently || point.offer.count > 1 else { return }
        let height = header.viewport.height
        onDevice(point.device, at: point.at) { tracker, _ in
            tracker.placed(offset: landing.contentOffset, viewportHeight: height, in: point.index, at: point.at)
        }
    }

    /// Applies one event; returns the restore point when it is a `restore` event. `line` is the
    /// event's line in the file, carried into the restore point.
    public mutating func apply(_ event: SessionEvent, line: Int = 0) -> RestorePoint? {
        if mergePolicy != nil { settleDueSaves(before: event.at) }
        switch event.kind {
        case .timeline, .insert, .remove, .update:
            break
        case .sync(let from, let to):
            see(from)
            see(to)
        default:
            see(event.device)
        }
        switch event.kind {
        case .timeline, .insert, .remove, .update:
            applyToServer(event.kind)
            timeline.apply(event.kind)
        case .fetch(let limit):
            fetch(limit: limit, on: event.device ?? header.device)
        case .scroll(let offset, let explicit):
            let name = event.device ?? header.device
            lastScrollDevice = name
            if explicit { explicitSince[name] = event.at }
            let (height, index) = (header.viewport.height, self.index(on: name))
            onDevice(event.device, at: event.at) { tracker, _ in
                tracker.observeScroll(offset: offset, viewportHeight: height, in: index, at: event.at)
            }
        case .lifecycle(let state):
            guard settings.persistenceEnabled, let lifecycle = PositionTracker.Lifecycle(rawValue: state.rawValue) else { break }
            let index = self.index(on: event.device ?? header.device)
            onDevice(event.device, at: event.at) { tracker, resume in
                tracker.observe(lifecycle, at: event.at, in: index)
                resume.observe(lifecycle, at: event.at)
            }
        case .sync(let from, let to):
            // The sender hands its heads over in the order they arrived there: a write it relays
            // reached it before its own latest, as it reached a marker server.
            guard mergePolicy != nil, let sent = replicas[from]?.state.recordsInArrivalOrder else { break }
            var receiver = replicas[to] ?? Replica()
            let wall = wallClock(of: to, at: event.at)
            receiver.state.receive(sent, on: to, clock: &receiver.clock, estimates: &receiver.estimates, wall: wall, maxClockOffset: maxClockOffset)
            // A delivery is a report of the sender's position, new or not (for the rules where
            // the last report wins).
            receiver.state.report(from: from)
            replicas[to] = receiver
            checkConvergence(at: event.at)
        case .restore(let tag, let expected):
            restoreCount += 1
            let name = event.device ?? header.device
            let (deviceTracker, deviceResume) =
                name == header.device
                ? (tracker, resume) : (otherDevices[name] ?? (PositionTracker(settings: settings.tracker, deviceId: name), ResumeState()))
            // The one rule of every restore (`RestoreStart`): the live anchor, else the register's
            // winner when another device wrote it, else this device's own saved snapshot.
            let own = deviceTracker.restoreInputWithLiveness(at: event.at)
            let start = RestoreStart.decide(
                own: own.snapshot, ownIsLive: own.isLive, ownDirection: deviceTracker.learnedDirection,
                register: replicas[name]?.state.registers[key], policy: mergePolicy, device: name)
            let (input, source) = (start.snapshot, start.source)
            let close = deviceResume.close(under: settings.policy, at: event.at, hasHistory: input != nil || !deviceTracker.history.isEmpty)
            let direction = start.direction
            let reached = input.flatMap { reachPost(of: $0, on: name, direction: direction) }
            var point = RestorePoint(
                line: line, at: event.at, tag: tag ?? RestorePoint.untagged, expected: expected, input: input,
                inputSource: source, close: close, index: index(on: name))
            point.reach = reached
            point.findings = reached?.findings ?? ReachFindings()
            if caches[name] != nil { point.serverIndex = timeline.index() }
            point.device = name
            point.direction = direction
            point.afterSwitch = lastScrollDevice.map { $0 != name } ?? false
            if source == .synced { point.ownInput = (start.ownSnapshot, start.ownSource ?? .none) }
            point.offer = start.offer.map(\.snapshot)
            // What this device read, and what the heads it has from the others say they read.
            point.read = deviceTracker.readPosts.including(digests: start.readElsewhere)
            if expected.unread != nil { point.unreadCounts = UnreadCount.counts(in: point.index, read: point.read) }
            return point
        }
        return nil
    }
}
