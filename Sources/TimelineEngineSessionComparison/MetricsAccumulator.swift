import TimelineEngineSessionReplay

/// The running totals of one pipeline over many restore points, kept in integers so that
/// merging shards or parallel workers gives exactly the figures of a single run.
public struct MetricsAccumulator: Sendable, Equatable {
    /// Pixel errors are counted in eighths of a point.
    public static let pixelUnitsPerPoint = 8.0
    /// Squared confidence errors are summed in billionths.
    public static let brierUnitsPerOne = 1_000_000_000.0

    /// Scored restore points.
    public var restorePoints = 0
    /// Restore points that could not be scored (the expected post was not in the timeline, or
    /// the timeline was empty).
    public var unscored = 0
    public var exact = 0
    public var within1 = 0
    /// Scored restore points where the pipeline answered nothing: misses, left out of the index
    /// and pixel errors.
    public var noAnswers = 0
    /// Σ |indexError|.
    public var absoluteIndexError = 0
    /// Σ indexError over restores that land below the expected post: posts skipped.
    public var skipped = 0
    /// Σ |indexError| over restores that land above it: posts re-read.
    public var reread = 0
    public var pixelError = Histogram()
    /// Σ (confidence − exact)², in billionths.
    public var brier: Int64 = 0
    /// Nanoseconds per restore, over every evaluated restore point.
    public var latency = Histogram()
    /// Scored restore points after a device switch, and how many of them were exact.
    public var switchPoints = 0
    public var switchExact = 0
    /// Scored restore points whose input was synced from another device, and how many of them
    /// were back jumps (`RestoreScore.backJump`).
    public var syncedPoints = 0
    public var backJumps = 0
    /// Scored restore points where the merge policy asked the reader where to continue, and
    /// how many of those the truth calls phantom (the reading had not diverged).
    public var prompts = 0
    public var phantomPrompts = 0
    /// Scored restore points where the reader's reading had truly diverged across devices, and
    /// how many of them the policy did not ask at.
    public var divergentPoints = 0
    public var missedDivergences = 0
    /// Device switches where the reading had not diverged, and how many of them asked.
    public var plainSwitches = 0
    public var plainSwitchPrompts = 0
    /// Scored restore points whose session gives the unread count's truth, how many counts were
    /// exact, and Σ |count − truth| ("N new above you").
    public var unreadPoints = 0
    public var unreadExact = 0
    public var unreadAbsoluteError = 0
    /// Milliseconds from each write until every device held the same winner.
    public var convergence = Histogram()
    /// Writes that had not reached every device when the session ended.
    public var unconverged = 0
    /// Restore points whose post the device's cache lacked (version 3), how many of them the
    /// reach strategy reached, and the requests (beyond the head page) and bytes it took: in all,
    /// and per point.
    public var reachPoints = 0
    public var reachReached = 0
    /// Scored restore points with a reach whose post still existed, and how many were exact.
    public var reachScored = 0
    public var reachExact = 0
    public var reachWithin1 = 0
    public var reachRequests = 0
    public var reachBytes = 0
    public var reachRequestCounts = Histogram()
    /// Reaches that ended neither with the post nor knowing it gone (not reached, failed, not
    /// tried): the reader is not on their post.
    public var reachMisses = 0
    /// Restore points whose post the cache held where the last fetch did not confirm it, and
    /// the requests that checked it still exists.
    public var checks = 0
    public var checkRequests = 0

    public init() {}

    /// Whether any reach was recorded: the report then shows the loading figures.
    public var hasReach: Bool { reachPoints > 0 || checks > 0 }

    /// Whether any sync figure was recorded: the report then shows them.
    public var hasSync: Bool {
        switchPoints > 0 || syncedPoints > 0 || convergence.total > 0 || unconverged > 0 || prompts > 0 || divergentPoints > 0
    }

    /// Records that a write took `seconds` to reach every device.
    public mutating func addConvergence(seconds: Double) {
        convergence.record(UInt64(min(max(0, seconds * 1000), 0x1p62).rounded()))
    }

    public mutating func add(_ evaluation: RestoreEvaluation) {
        latency.record(evaluation.latencyNanoseconds)
        if let reach = evaluation.reach, reach.checked {
            checks += 1
            checkRequests += reach.requests
        } else if let reach = evaluation.reach {
            if reach.outcome != .gone, let score = evaluation.score {
                reachScored += 1
                if score.exact { reachExact += 1 }
                if score.within1 { reachWithin1 += 1 }
            }
            reachPoints += 1
            if reach.outcome == .reached { reachReached += 1 }
            if reach.outcome != .reached, reach.outcome != .gone { reachMisses += 1 }
            reachRequests += reach.requests
            reachBytes += reach.bytes
            reachRequestCounts.record(UInt64(reach.requests))
        }
        guard let score = evaluation.score else {
            unscored += 1
            return
        }
        restorePoints += 1
        if score.afterSwitch {
            switchPoints += 1
            if score.exact { switchExact += 1 }
            if !score.diverged {
                plainSwitches += 1
                if score.prompted { plainSwitchPrompts += 1 }
            }
        }
        if score.prompted {
            prompts += 1
            if !score.diverged { phantomPrompts += 1 }
        }
        if score.diverged {
            divergentPoints += 1
            if !score.prompted { missedDivergences += 1 }
        }
        if let truth = score.expectedUnread {
            unreadPoints += 1
            // No answer, no place to count from: a miss by the whole truth.
            let error = score.unread.map { abs($0 - truth) } ?? max(1, truth)
            if error == 0 { unreadExact += 1 }
            unreadAbsoluteError += error
        }
        if score.noAnswer {
            noAnswers += 1
            return  // a miss; confidence 0 adds nothing to the Brier score
        }
        if score.exact { exact += 1 }
        if score.within1 { within1 += 1 }
        absoluteIndexError += abs(score.indexError)
        if score.indexError > 0 { skipped += score.indexError } else { reread -= score.indexError }
        if let pixels = score.pixelError {
            // Readers bound offsets (`GeometryLimits`); saturate anyway rather than trap.
            let units = (pixels * MetricsAccumulator.pixelUnitsPerPoint).rounded()
            pixelError.record(units < 0x1p63 ? UInt64(max(0, units)) : 1 << 63)
        }
        if let backJump = score.backJump {
            syncedPoints += 1
            if backJump { backJumps += 1 }
        }
        let miss = min(1, max(0, score.confidence)) - (score.exact ? 1 : 0)
        brier += Int64((miss * miss * MetricsAccumulator.brierUnitsPerOne).rounded())
    }

    public mutating func merge(_ other: MetricsAccumulator) {
        restorePoints += other.restorePoints
        unscored += other.unscored
        exact += other.exact
        within1 += other.within1
        noAnswers += other.noAnswers
        absoluteIndexError += other.absoluteIndexError
        skipped += other.skipped
        reread += other.reread
        pixelError.merge(other.pixelError)
        brier += other.brier
        latency.merge(other.latency)
        switchPoints += other.switchPoints
        switchExact += other.switchExact
        syncedPoints += other.syncedPoints
        backJumps += other.backJumps
        prompts += other.prompts
        phantomPrompts += other.phantomPrompts
        divergentPoints += other.divergentPoints
        missedDivergences += other.missedDivergences
        plainSwitches += other.plainSwitches
        plainSwitchPrompts += other.plainSwitchPrompts
        unreadPoints += other.unreadPoints
        unreadExact += other.unreadExact
        unreadAbsoluteError += other.unreadAbsoluteError
        convergence.merge(other.convergence)
        unconverged += other.unconverged
        reachPoints += other.reachPoints
        reachReached += other.reachReached
        reachScored += other.reachScored
        reachExact += other.reachExact
        reachWithin1 += other.reachWithin1
        reachRequests += other.reachRequests
        reachBytes += other.reachBytes
        reachRequestCounts.merge(other.reachRequestCounts)
        reachMisses += other.reachMisses
        checks += other.checks
        checkRequests += other.checkRequests
    }

    /// The figures a report shows.
    public var summary: MetricsSummary {
        let points = Double(restorePoints)
        let answered = restorePoints - noAnswers
        func pixels(_ q: Double) -> Double? { pixelError.quantile(q).map { Double($0) / MetricsAccumulator.pixelUnitsPerPoint } }
        func micros(_ q: Double) -> Double? { latency.quantile(q).map { Double($0) / 1000 } }
        func seconds(_ q: Double) -> Double? { convergence.quantile(q).map { Double($0) / 1000 } }
        return MetricsSummary(
            restorePoints: restorePoints, unscored: unscored,
            exact: restorePoints > 0 ? Double(exact) / points : nil,
            within1: restorePoints > 0 ? Double(within1) / points : nil,
            noAnswers: noAnswers,
            meanAbsIndexError: answered > 0 ? Double(absoluteIndexError) / Double(answered) : nil,
            skipped: skipped, reread: reread, pixelErrorCount: pixelError.total,
            pixelErrorMedian: pixels(0.5), pixelErrorP90: pixels(0.9),
            brier: restorePoints > 0 ? Double(brier) / MetricsAccumulator.brierUnitsPerOne / points : nil,
            latencyP50: micros(0.5), latencyP99: micros(0.99),
            switchPoints: switchPoints, switchExact: switchPoints > 0 ? Double(switchExact) / Double(switchPoints) : nil,
            syncedPoints: syncedPoints, backJumps: backJumps, prompts: prompts, phantomPrompts: phantomPrompts,
            divergentPoints: divergentPoints, missedDivergences: missedDivergences,
            promptedDivergences: divergentPoints > 0 ? Double(divergentPoints - missedDivergences) / Double(divergentPoints) : nil,
            plainSwitchPrompts: plainSwitches > 0 ? Double(plainSwitchPrompts) / Double(plainSwitches) : nil,
            unreadPoints: unreadPoints, unreadExact: unreadPoints > 0 ? Double(unreadExact) / Double(unreadPoints) : nil,
            unreadMeanAbsoluteError: unreadPoints > 0 ? Double(unreadAbsoluteError) / Double(unreadPoints) : nil,
            convergedWrites: convergence.total,
            convergenceP50: seconds(0.5), convergenceP90: seconds(0.9), unconverged: unconverged,
            reachPoints: reachPoints, reachReached: reachPoints > 0 ? Double(reachReached) / Double(reachPoints) : nil,
            reachExact: reachScored > 0 ? Double(reachExact) / Double(reachScored) : nil,
            reachWithin1: reachScored > 0 ? Double(reachWithin1) / Double(reachScored) : nil,
            reachRequestsP50: reachRequestCounts.quantile(0.5).map { Double($0) },
            reachRequestsP90: reachRequestCounts.quantile(0.9).map { Double($0) },
            reachRequestsMean: reachPoints > 0 ? Double(reachRequests) / Double(reachPoints) : nil,
            reachKilobytesMean: reachPoints > 0 ? Double(reachBytes) / 1024 / Double(reachPoints) : nil,
            reachMisses: reachMisses, checks: checks, checkRequests: checkRequests)
    }
}

/// One row of a comparison: rates in [0, 1], pixel errors in points, latencies in
/// microseconds. Nil where there is nothing to measure.
public struct MetricsSummary: Sendable, Equatable {
    public var restorePoints: Int
    public var unscored: Int
    public var exact: Double?
    public var within1: Double?
    /// Restore points where the pipeline answered nothing (counted as misses in the rates).
    public var noAnswers = 0
    /// Mean |index error| over the points answered.
    public var meanAbsIndexError: Double?
    public var skipped: Int
    public var reread: Int
    /// How many restore points gave a `viewportY`, so had a pixel error.
    public var pixelErrorCount: Int
    public var pixelErrorMedian: Double?
    public var pixelErrorP90: Double?
    /// Mean (confidence − exact)²: 0 is perfectly calibrated and sure.
    public var brier: Double?
    public var latencyP50: Double?
    public var latencyP99: Double?
    /// Restore points after a device switch, and the share of them that were exact.
    public var switchPoints = 0
    public var switchExact: Double?
    /// Restore points restored from another device's position, and how many of them took the
    /// reader farther from where they left off than this device's own position would have.
    public var syncedPoints = 0
    public var backJumps = 0
    /// Restore points where the merge policy asked the reader, and those of them where the
    /// reading had not diverged (phantom prompts).
    public var prompts = 0
    public var phantomPrompts = 0
    /// Restore points where the reading had truly diverged across devices, those where the
    /// policy did not ask, and the share where it did.
    public var divergentPoints = 0
    public var missedDivergences = 0
    public var promptedDivergences: Double?
    /// The share of device switches without a divergence where the policy asked anyway.
    public var plainSwitchPrompts: Double?
    /// Restore points that give the unread count's truth, the share where "N new above you"
    /// was exact, and its mean absolute error.
    public var unreadPoints = 0
    public var unreadExact: Double?
    public var unreadMeanAbsoluteError: Double?
    /// Writes that reached every device, and the median and p90 seconds that took.
    public var convergedWrites = 0
    public var convergenceP50: Double?
    public var convergenceP90: Double?
    /// Writes that had not reached every device when their session ended.
    public var unconverged = 0
    /// Restore points whose post the device's cache lacked, the share of them reached, and the
    /// requests (median and mean, beyond the head page) and kilobytes (mean) per such point.
    public var reachPoints = 0
    public var reachReached: Double?
    /// The exact rate at those points whose post still existed.
    public var reachExact: Double?
    public var reachWithin1: Double?
    public var reachRequestsP50: Double?
    public var reachRequestsP90: Double?
    public var reachRequestsMean: Double?
    public var reachKilobytesMean: Double?
    /// Reaches that ended neither with the post nor knowing it gone.
    public var reachMisses = 0
    /// Restore points whose cached post was checked, and the requests that took.
    public var checks = 0
    public var checkRequests = 0
}
