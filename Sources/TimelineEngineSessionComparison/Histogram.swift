/// Counts of non-negative integer values in log-linear buckets, for percentiles whose memory
/// does not grow with the number of values and whose merge is exact.
///
/// Values below 128 have a bucket each. Above, every power of two is split into 64 buckets, and
/// a bucket reports its midpoint, so a percentile is within 0.8 % of the true value. Merging
/// two histograms gives the same histogram as recording every value into one, in any order,
/// which is what lets sharded and parallel comparisons agree with a single run.
public struct Histogram: Sendable, Equatable {
    /// Bucket number → count.
    public private(set) var counts: [Int: Int] = [:]
    public private(set) var total = 0

    public init() {}

    public init(counts: [Int: Int]) {
        self.counts = counts.filter { $0.value > 0 }
        total = self.counts.values.reduce(0, +)
    }

    public mutating func record(_ value: UInt64) {
        counts[Histogram.bucket(for: value), default: 0] += 1
        total += 1
    }

    public mutating func merge(_ other: Histogram) {
        for (bucket, count) in other.counts { counts[bucket, default: 0] += count }
        total += other.total
    }

    /// The nearest-rank `q`-quantile (0 < q ≤ 1), as its bucket's representative value; nil when
    /// empty.
    public func quantile(_ q: Double) -> UInt64? {
        guard total > 0 else { return nil }
        let rank = max(1, Int((q * Double(total)).rounded(.up)))
        var seen = 0
        for bucket in counts.keys.sorted() {
            seen += counts[bucket]!
            if seen >= rank { return Histogram.representative(of: bucket) }
        }
        return counts.keys.max().map(Histogram.representative(of:))
    }

    static let exactLimit: UInt64 = 128
    static let subBuckets = 64

    static func bucket(for value: UInt64) -> Int {
        guard value >= exactLimit else { return Int(value) }
        let highest = 63 - value.leadingZeroBitCount
        let shift = highest - 6
        let top = Int(value >> UInt64(shift))
        return Int(exactLimit) + (shift - 1) * subBuckets + (top - subBuckets)
    }

    static func representative(of bucket: Int) -> UInt64 {
        guard bucket >= Int(exactLimit) else { return UInt64(bucket) }
        let shift = (bucket - Int(exactLimit)) / subBuckets + 1
        let top = UInt64((bucket - Int(exactLimit)) % subBuckets + subBuckets)
        return (top << UInt64(shift)) + (UInt64(1) << UInt64(shift)) / 2
    }
}
