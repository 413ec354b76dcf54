import Foundation

/// How a simulated reader reads and scrolls, with every figure from
/// `docs/data/reading-behaviour.md` (Kong et al., ETRA 2023, for attention per post; Gooding et al.,
/// CoNLL 2021, for scroll mechanics).
public struct ReadingModel: Sendable {
    /// Skip, skim or read in detail.
    public enum Level: Int, Sendable, CaseIterable {
        case skip, skim, detail
    }

    // Session budget per visit: LogNormal(4.81, 0.76) s, median 123 s (§3.1).
    public static let visitMu = 4.81, visitSigma = 0.76
    // Read-level shares (§1.2): skip 23 %, skim 59 %, detail 18 %; length dependence from the
    // table by message length.
    public static let levelShares = [0.23, 0.59, 0.18]
    // Exclusive attention time per post (§3.3): skip mu 0.35 σ 1.32, skim 1.10/0.80, detail
    // 1.93/0.66; 3.3 % of skips are never on screen.
    public static let dwellMu = [0.35, 1.10, 1.93], dwellSigma = [1.32, 0.80, 0.66]
    public static let skipNeverSeen = 0.033
    // Reader effect on ln(dwell): N(0, 0.38) once per reader (§1.4).
    public static let readerSpread = 0.38
    // Scroll speed: LogNormal(5.38, 1.61) px/s (§2.6).
    public static let speedMu = 5.38, speedSigma = 1.61
    // Backward scrolls (§3.5): p_back 0.24 per burst after the first; 28 % of readers never
    // scroll back; 45 % of upward bursts return to the top; otherwise LogNormal(5.26, 1.58) px.
    public static let backwardShare = 0.24, neverBackShare = 0.28, returnToTop = 0.45
    public static let upMu = 5.26, upSigma = 1.58
    // First scroll after LogNormal(2.23, 1.35) s (§2.6).
    public static let firstScrollMu = 2.23, firstScrollSigma = 1.35

    /// This reader's shift of ln(dwell).
    public var dwellShift: Double
    /// This reader's chance that a burst goes up.
    public var backwardChance: Double
    /// This reader's read-level shares.
    public var shares: [Double]

    /// A reader drawn from the population.
    public init(random: inout SimulationRandom) {
        dwellShift = ReadingModel.readerSpread * random.normal()
        // A mixture: some readers never go back; the rest do so often enough that the
        // population's share is p_back.
        backwardChance = random.chance(ReadingModel.neverBackShare) ? 0 : ReadingModel.backwardShare / (1 - ReadingModel.neverBackShare)
        // Each reader's own mix, jittered around the shares (participants ranged widely, §1.2).
        let jittered = ReadingModel.levelShares.map { $0 * exp(0.35 * random.normal()) }
        let total = jittered.reduce(0, +)
        shares = jittered.map { $0 / total }
    }

    /// The read level of a post of `words` words (§1.2: ≤ 20 words are almost never read in
    /// detail; > 100 words are read in detail 58 % of the time).
    public func level(words: Int, random: inout SimulationRandom) -> Level {
        var weights = shares
        if words <= 20 {
            weights = [weights[0] * 2.0, weights[1], weights[2] * 0.06]
        } else if words > 100 {
            weights = [weights[0] * 0.1, weights[1] * 0.7, weights[2] * 3.2]
        }
        return Level(rawValue: random.pick(weights: weights)) ?? .skim
    }

    /// Seconds of attention on a post read at `level`.
    public func dwell(_ level: Level, random: inout SimulationRandom) -> Double {
        if level == .skip, random.chance(ReadingModel.skipNeverSeen) { return 0 }
        return random.logNormal(mu: ReadingModel.dwellMu[level.rawValue] + dwellShift, sigma: ReadingModel.dwellSigma[level.rawValue])
    }

    /// Scroll speed in points per second, kept within what a finger or wheel does.
    public func speed(random: inout SimulationRandom) -> Double {
        min(6000, max(60, random.logNormal(mu: ReadingModel.speedMu, sigma: ReadingModel.speedSigma)))
    }

    /// How far an upward burst goes from `offset`: to the top, or a drawn distance.
    public func upwardDistance(from offset: Double, random: inout SimulationRandom) -> Double {
        if random.chance(ReadingModel.returnToTop) { return offset }
        return min(offset, random.logNormal(mu: ReadingModel.upMu, sigma: ReadingModel.upSigma))
    }

    public func visitLength(random: inout SimulationRandom) -> Double {
        random.logNormal(mu: ReadingModel.visitMu, sigma: ReadingModel.visitSigma)
    }

    public func firstScrollDelay(random: inout SimulationRandom) -> Double {
        min(60, random.logNormal(mu: ReadingModel.firstScrollMu, sigma: ReadingModel.firstScrollSigma))
    }
}
