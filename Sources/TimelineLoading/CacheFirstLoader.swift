import Foundation
import RestorationEngine
import StrategyKit
import TimelineCore
import TimelineFormats
import TimelineStore

/// Loads a timeline cache-first, as the Tweet-iOS seed does, and puts the reader back:
///
/// 1. The cached timeline is handed over at once (`onCached`), with its age.
/// 2. The source is asked for a refresh, retried as the network policy allows.
/// 3. The answer is merged into the cache (`TimelineMerge`).
/// 4. The result is stored, trimmed by the cache policy, and the changes reported.
/// 5. The reader's newest saved position is restored on it with the pipeline.
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

    public init(store: TimelineStore, scope: StoreScope, fetcher: SourceFetcher, pipeline: Pipeline, cachePolicy: any CachePolicy,
                now: @escaping @Sendable () -> Date = Date.init) {
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
        /// The newest saved position, and where it puts the reader on `timeline`.
        public var position: PositionSnapshot?
        public var restoration: Restoration?
    }

    /// Runs the five steps. Only a store that cannot be read or written throws; a source that
    /// fails is reported in the result.
    public func load(from source: TimelineSource, onCached: @Sendable (TimelineStore.CachedTimeline?) -> Void = { _ in },
                     progress: @Sendable (SourceFetcher.Progress) -> Void = { _ in }) async throws(StoreError) -> Report {
        let cached = try store.timeline(scope: scope, at: now())
        onCached(cached)
        let outcome = await fetcher.fetch(source, progress: progress)
        let viewportHeight = cached?.viewportHeight ?? outcome.viewportHeight ?? TimelineFormat.defaultViewportHeight
        var report = Report(cached: cached, status: .fresh, lastRefreshed: cached?.refreshedAt, error: nil, attempts: outcome.attempts,
                            merge: nil, evicted: [], timeline: Timeline(posts: cached?.posts ?? [], viewportHeight: viewportHeight))
        switch outcome.result {
        case .failure(let error):
            report.status = error.isUnreachable ? .offline : .stale
            report.error = error
        case .success(let posts):
            let time = now()
            // Merged into what the store holds when it is written, which another load may have
            // changed since `cached` was read.
            let merge = try store.updateTimeline(scope: scope, refreshedAt: time) { current in
                let merge = TimelineMerge(cached: current?.posts ?? [], fetched: posts, coverage: source.coverage,
                                          cachedGaps: current?.gapsBelow ?? [])
                return (TimelineStore.TimelineUpdate(posts: merge.posts, unconfirmed: Set(merge.retained), gapsBelow: merge.gapsBelow,
                                                     viewportHeight: viewportHeight), merge)
            }
            report.merge = merge
            report.evicted = try store.trimTimeline(scope: scope, policy: cachePolicy, now: time)
            report.lastRefreshed = time
            let stored = try store.storedTimeline(scope: scope)
            report.timeline = Timeline(posts: stored?.posts ?? [], viewportHeight: viewportHeight)
            report.gaps = stored?.gaps ?? []
        }
        if report.merge == nil { report.gaps = cached?.gaps ?? [] }
        if let snapshot = try store.history(scope: scope).first, !report.timeline.posts.isEmpty {
            let outcome = pipeline.restore(RestorationRequest(snapshot: snapshot, index: TimelineIndex(report.timeline)))
            report.position = snapshot
            report.restoration = outcome.restoration
            if let restoration = outcome.restoration { try store.saveRestoration(restoration, scope: scope, at: now()) }
        }
        return report
    }
}
