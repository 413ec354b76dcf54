import SessionReplay

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

    public init() {}

    public mutating func add(_ evaluation: RestoreEvaluation) {
        latency.record(evaluation.latencyNanoseconds)
        guard let score = evaluation.score else {
            unscored += 1
            return
        }
        restorePoints += 1
        if score.exact { exact += 1 }
        if score.within1 { within1 += 1 }
        absoluteIndexError += abs(score.indexError)
        if score.indexError > 0 { skipped += score.indexError } else { reread -= score.indexError }
        if let pixels = score.pixelError {
            // Readers bound offsets (`GeometryLimits`); saturate anyway rather than trap.
            let units = (pixels * MetricsAccumulator.pixelUnitsPerPoint).rounded()
            pixelError.record(units < 0x1p63 ? UInt64(max(0, units)) : 1 << 63)
        }
        let miss = min(1, max(0, score.confidence)) - (score.exact ? 1 : 0)
        brier += Int64((miss * miss * MetricsAccumulator.brierUnitsPerOne).rounded())
    }

    public mutating func merge(_ other: MetricsAccumulator) {
        restorePoints += other.restorePoints
        unscored += other.unscored
        exact += other.exact
        within1 += other.within1
        absoluteIndexError += other.absoluteIndexError
        skipped += other.skipped
        reread += other.reread
        pixelError.merge(other.pixelError)
        brier += other.brier
        latency.merge(other.latency)
    }

    /// The figures a report shows.
    public var summary: MetricsSummary {
        let points = Double(restorePoints)
        func pixels(_ q: Double) -> Double? { pixelError.quantile(q).map { Double($0) / MetricsAccumulator.pixelUnitsPerPoint } }
        func micros(_ q: Double) -> Double? { latency.quantile(q).map { Double($0) / 1000 } }
        return MetricsSummary(
            restorePoints: restorePoints, unscored: unscored,
            exact: restorePoints > 0 ? Double(exact) / points : nil,
            within1: restorePoints > 0 ? Double(within1) / points : nil,
            meanAbsIndexError: restorePoints > 0 ? Double(absoluteIndexError) / points : nil,
            skipped: skipped, reread: reread, pixelErrorCount: pixelError.total,
            pixelErrorMedian: pixels(0.5), pixelErrorP90: pixels(0.9),
            brier: restorePoints > 0 ? Double(brier) / MetricsAccumulator.brierUnitsPerOne / points : nil,
            latencyP50: micros(0.5), latencyP99: micros(0.99))
    }
}

/// One row of a comparison: rates in [0, 1], pixel errors in points, latencies in
/// microseconds. Nil where there is nothing to measure.
public struct MetricsSummary: Sendable, Equatable {
    public var restorePoints: Int
    public var unscored: Int
    public var exact: Double?
    public var within1: Double?
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
}
