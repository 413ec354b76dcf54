import Foundation
import TimelineEngineCacheModel
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineReachModel
import TimelineEngineRestoration
import TimelineEngineRestorationModel
import TimelineEngineStore
import TimelineEngineSyncModel

/// Loads a timeline cache-first, as the Tweet-iOS seed does, and puts the reader back:
///
/// 1. The cached timeline is handed over at once (`onCached`), with its age.
/// 2. The source is asked for a refresh, retried as the network policy allows.
/// 3. The answer is merged into the cache (`TimelineMerge`).
/// 4. The result is stored, trimmed by the cache policy, and the changes reported.
/// 5. The position to restore is chosen by the one rule (`RestoreStart`): with sync, the
///    register's winner when another device wrote it, else this device's newest saved snapshot.
/// 6. When that post is not in the timeline and the source pages, the reach strategy fetches it
///    and the posts around it (`ReachRun`), merged in as windows with gaps where posts remain
///    missing.
/// 7. The position is restored on the result with the pipeline.
///
/// When the refresh fails the cached timeline stands, untouched, and the status says whether
/// the source was unreachable (offline) or answered with something unusable (stale).
public struct CacheFirstLoader: Sendable {
    public let store: TimelineStore
    public let scope: StoreScope
    public let fetcher: SourceFetcher
    public let pipeline: Pipeline
    /// Bounds the cached posts after each refresh.
    public let cachePolicy: any CachePolicy
    /// The time, for storage and ages.
    public var now: @Sendable () -> Date
    /// How a post the cache lacks is reached (nil: it is not; the restore uses what is cached).
    public var reach: (any ReachStrategy)?
    /// With sync: the merge policy and this device, so that a restore starts from the
    /// register's winner (nil: this device's own history only).
    public var sync: SyncView?

    /// What the loader needs of sync to choose where a restore starts.
    public struct SyncView: Sendable {
        public var policy: any MergePolicy
        public var device: String

        public init(policy: any MergePolicy, device: String) {
            self.policy = policy
            self.device = device
        }
    }

    public init(
        store: TimelineStore, scope: StoreScope, fetcher: SourceFetcher, pipeline: Pipeline, cachePolicy: any CachePolicy,
        reach: (any ReachStrategy)? = nil, sync: SyncView? = nil, now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.reach = reach
        self.sync = sync
        self.store = store
        self.scope = scope
        self.fetcher = fetcher
        self.pipeline = pipeline
        self.cachePolicy = cachePolicy
        self.now = now
    }

    /// Whether the timeline is as the source has it now.
    public enum Status: String, Sendable, Equatable {
        /// Refreshed from the source just now.
        case fresh
        /// The source could not be reached; the cached timeline stands.
        case offline
        /// The source answered, but not with a usable timeline; the cached timeline stands.
        case stale
    }

    /// What a load did.
    public struct Report: Sendable {
        /// The timeline as cached before the refresh (nil: nothing was cached).
        public var cached: TimelineStore.CachedTimeline?
        public var status: Status
        /// When the timeline was last refreshed from its source (now, when fresh).
        public var lastRefreshed: Date?
        /// Why the refresh failed.
        public var error: SourceError?
        /// Every request made.
        public var attempts: [SourceFetcher.Attempt]
        /// What the refresh changed (nil when it failed).
        public var merge: TimelineMerge?
        /// Ids the cache policy evicted after storing.
        public var evicted: [String]
        /// The timeline now, in display order.
        public var timeline: Timeline
        /// Where `timeline` lacks posts the source has, top to bottom.
        public var gaps: [TimelineGap] = []
        /// Where the restore started (the one rule), and where it put the reader on `timeline`.
        public var start: RestoreStart?
        public var restoration: Restoration?
        /// How the restore's post was fetched when the cache lacked it (nil: it was cached, or
        /// there was no position).
        public var reach: ReachReport?
        /// How long the restoration pipeline took to decide; nil when it did not run.
        public var decision: Duration?

        /// Whether the restore's post was fetched across a gap by the reach strategy (not
        /// only checked to still exist).
        public var reached: Bool { reach.map { !$0.checked && $0.requestCount > 0 } ?? false }

        /// The position restored from.
        public var position: PositionSnapshot? { start?.snapshot }
    }

    /// What reaching the restore's post did.
    public struct ReachReport: Sendable {
        public var postId: String
        /// The strategy that chose the requests.
        public var strategy: String
        public var outcome: ReachRun.Outcome
        /// Each request and how it went, in order.
        public var requests: [ReachRequest]
        /// Requests sent, retries included.
        public var requestCount: Int
        /// Bytes of the answers.
        public var bytes: Int
        /// Posts the pages added to the cache.
        public var added: Int
        /// True when the cache held the post from an earlier load and the strategy only checked
        /// that it still exists.
        public var checked = false
        /// What the answers told the restoration: the post gone, and the post that follows it.
        public var findings = ReachFindings()
    }

    /// One request of a reach.
    public struct ReachRequest: Sendable {
        public var request: PageRequest
        public var url: String
        /// Nil when it was answered; the reason otherwise.
        public var failure: String?
        /// Posts in the answer.
        public var posts: Int
        public var attempts: Int
        /// Posts of the answer beyond what was asked for, left out (`PageAnswer.cut`).
        public var cut = 0
    }

    /// Runs the five steps. Only a store that cannot be read or written throws; a source that
    /// fails is reported in the result.
    public func load(
        from source: TimelineSource, onCached: @Sendable (TimelineStore.CachedTimeline?) -> Void = { _ in },
        progress: @Sendable (SourceFetcher.Progress) -> Void = { _ in }
    ) async throws(StoreError) -> Report {
        let cached = try await store.timelines.timeline(scope: scope, at: now())
        onCached(cached)
        // One deadline for the refresh and the reach that follows it.
        let fetcher = fetcher.startingDeadline()
        let outcome = await fetcher.fetch(source, progress: progress)
        let viewportHeight = cached?.viewportHeight ?? outcome.viewportHeight ?? TimelineFormat.defaultViewportHeight
        var report = Report(
            cached: cached, status: .fresh, lastRefreshed: cached?.refreshedAt, error: nil, attempts: outcome.attempts,
            merge: nil, evicted: [], timeline: Timeline(posts: cached?.posts ?? [], viewportHeight: viewportHeight))
        switch outcome.result {
        case .failure(let error):
            report.status = error.isUnreachable ? .offline : .stale
            report.error = error
        case .success(let posts):
            let time = now()
            // Merged into what the store holds when it is written, which another load may have
            // changed since `cached` was read.
            // Trimmed by the cache policy as it is written: an answer of many posts writes only
            // what the cache keeps.
            let (merge, evicted) = try await store.timelines.updateTimeline(scope: scope, refreshedAt: time, trimmedBy: cachePolicy) { current in
                let merge = TimelineMerge(
                    cached: current?.posts ?? [], fetched: posts, coverage: source.coverage,
                    cachedGaps: current?.gapsBelow ?? [], anchors: source.anchors(answerCount: posts.count))
                return (
                    TimelineCacheStore.TimelineUpdate(
                        posts: merge.posts, unconfirmed: Set(merge.retained), gapsBelow: merge.gapsBelow,
                        viewportHeight: viewportHeight), merge
                )
            }
            report.merge = merge
            report.evicted = evicted
            report.lastRefreshed = time
            let stored = try await store.timelines.storedTimeline(scope: scope)
            report.timeline = Timeline(posts: stored?.posts ?? [], viewportHeight: viewportHeight)
            report.gaps = stored?.gaps ?? []
        }
        if report.merge == nil { report.gaps = cached?.gaps ?? [] }
        let start = try await restoreStart()
        report.start = start
        // A post the refresh did not bring: fetched when the cache lacks it, or checked when the
        // cache holds it from an earlier load.
        var findings = ReachFindings()
        if let snapshot = start.snapshot, !((try? outcome.result.get()) ?? []).contains(where: { $0.id == snapshot.postId }) {
            let reach = try await reachPost(
                snapshot, direction: start.direction, source: source, fetcher: fetcher, outcome: outcome,
                report: &report, progress: progress)
            if !reach.checked || reach.requestCount > 0 { report.reach = reach }
            findings = reach.findings
        }
        if let snapshot = start.snapshot, !report.timeline.posts.isEmpty {
            let request = RestorationRequest(
                snapshot: snapshot, index: TimelineIndex(report.timeline), direction: start.direction,
                findings: findings)
            let started = ContinuousClock.now
            let outcome = pipeline.restore(request)
            report.decision = ContinuousClock.now - started
            report.restoration = outcome.restoration
            if let restoration = outcome.restoration { try await store.positions.saveRestoration(restoration, scope: scope, at: now()) }
        }
        return report
    }

    /// Where a restore starts, by the one rule: with sync, the register's winner when another
    /// device wrote it; else this device's newest saved snapshot.
    public func restoreStart() async throws(StoreError) -> RestoreStart {
        let inputs = try await store.sync.restoreInputs(scope: scope)
        return RestoreStart.decide(
            own: inputs.history.first, ownIsLive: false, ownDirection: .learned(fromHistory: inputs.history), register: inputs.register,
            policy: sync?.policy, device: sync?.device)
    }

    /// Fetches the post of `snapshot` and the posts around it with the reach strategy, merges
    /// them into the store, and updates the report's timeline. Nothing is asked when the refresh
    /// failed, the source is a file, or there is no reach strategy.
    func reachPost(
        _ snapshot: PositionSnapshot, direction: ReadingDirection?, source: TimelineSource, fetcher: SourceFetcher,
        outcome: SourceFetcher.Outcome, report: inout Report,
        progress: @Sendable (SourceFetcher.Progress) -> Void = { _ in }
    ) async throws(StoreError) -> ReachReport {
        let strategyName = reach?.name ?? "none"
        var result = ReachReport(
            postId: snapshot.postId, strategy: strategyName, outcome: .notTried, requests: [], requestCount: 0, bytes: 0, added: 0)
        result.checked = report.timeline.posts.contains { $0.id == snapshot.postId }
        guard let reach, report.status == .fresh,
            let pages = HTTPPageSource(source, fetcher: fetcher, rateLimitSpentUntil: outcome.rateLimitSpentUntil, now: now),
            case .success(let head) = outcome.result
        else { return result }
        var goal = ReachGoal(
            // A position that is a Bluesky post's id alone still says when the post was made.
            postId: snapshot.postId, postCreatedAt: snapshot.postCreatedAt ?? TimestampIdentifier.creationTime(ofPostId: snapshot.postId),
            pagesByPost: pages.pagesByPost,
            maxPageSize: pages.maxPageSize, headCursor: outcome.cursor, headLastPost: head.last?.id,
            cached: Set(report.timeline.posts.map(\.id)))
        goal.isCached = result.checked
        goal.headPageSpacing = ReachGoal.spacing(of: head)
        goal.standIns(of: snapshot, direction: direction ?? .usual, cached: goal.cached, confirmed: Set(head.map(\.id)))
        var run = ReachRun(goal: goal, strategy: reach)
        while let request = run.next() {
            progress(.reaching(post: snapshot.postId, request: run.exchanges.count + 1))
            let answered = await pages.answer(request, progress: progress)
            switch answered.answer {
            case .success(let answer):
                run.record(request, answer: answer, attempts: max(1, answered.attempts.count))
                result.requests.append(
                    ReachRequest(
                        request: request, url: answered.url.absoluteString, failure: nil, posts: answer.posts.count,
                        attempts: answered.attempts.count, cut: run.exchanges.last?.answer.cut ?? 0))
            case .failure(let error):
                run.fail(error.description, attempts: answered.attempts.count)
                result.requests.append(
                    ReachRequest(
                        request: request, url: answered.url.absoluteString, failure: error.description, posts: 0,
                        attempts: answered.attempts.count))
            }
        }
        result.outcome = run.outcome
        result.requestCount = run.requests
        result.bytes = run.bytes
        result.findings = run.findings
        let fetchedPages = run.pages
        guard !fetchedPages.isEmpty || !run.findings.gone.isEmpty else { return result }
        progress(.merging(posts: fetchedPages.reduce(0) { $0 + $1.posts.count }))
        let time = now()
        let finished = run
        let (added, evicted) = try await store.timelines.updateTimeline(scope: scope, refreshedAt: time, trimmedBy: cachePolicy) { current in
            let cached = current?.posts ?? []
            let merged = finished.merge(fetchedPages, into: cached, gapsBelow: current?.gapsBelow ?? [])
            // The cached posts no page brought: they stay unconfirmed.
            var unconfirmed = Set(cached.map(\.id))
            for page in fetchedPages { for post in page.posts { unconfirmed.remove(post.id) } }
            unconfirmed.subtract(merged.removed)
            let place = Self.readerPlace(in: merged.posts, goal: snapshot.postId, createdAt: snapshot.postCreatedAt, findings: finished.findings)
            return (
                TimelineCacheStore.TimelineUpdate(posts: merged.posts, unconfirmed: unconfirmed, gapsBelow: merged.gapsBelow, kept: place),
                merged.added.count
            )
        }
        result.added = added
        report.evicted += evicted
        let stored = try await store.timelines.storedTimeline(scope: scope)
        report.timeline = Timeline(posts: stored?.posts ?? [], viewportHeight: report.timeline.viewportHeight)
        report.gaps = stored?.gaps ?? []
        result.outcome = run.outcome(seenIn: report.timeline.posts)
        return result
    }

    /// Posts kept on either side of the reader's post when the cache is trimmed after a reach.
    static let keptAroundReader = 50

    /// The reader's place in `posts` after a reach: the post; where it is gone, the post that
    /// follows it there, or else the first post no newer than it was; with `keptAroundReader`
    /// posts on either side. The cache policy evicts around it: a reach that brought more posts
    /// than the cache holds must not evict the post it went for.
    static func readerPlace(in posts: [Post], goal: String, createdAt: Date?, findings: ReachFindings) -> Set<String> {
        let candidates = [goal, findings.survivorBelow, findings.survivorAbove].compactMap { $0 }
        let byId = candidates.lazy.compactMap { id in posts.firstIndex { $0.id == id } }.first
        let byTime = createdAt.flatMap { createdAt in posts.firstIndex { $0.createdAt <= createdAt } }
        guard let index = byId ?? byTime else { return [] }
        let window = max(0, index - keptAroundReader)...min(posts.count - 1, index + keptAroundReader)
        return Set(posts[window].map(\.id))
    }
}
