import Dispatch
import TimelineEngineCore
import TimelineEnginePositionTracking
import TimelineEngineRestoration
import TimelineEngineRestorationModel

/// The metrics of one restore point for one pipeline. Indexes are on the timeline at the
/// restore point.
public struct RestoreScore: Sendable, Equatable {
    public var expectedIndex: Int
    public var restoredIndex: Int
    /// The restored post is the expected post.
    public var exact: Bool
    /// |restored − expected| ≤ 1.
    public var within1: Bool
    /// restored − expected: positive when the reader lands below and skips posts, negative
    /// when they re-read.
    public var indexError: Int
    /// |restored content offset − (y(expected) − expected viewportY)|, unclamped; nil when the
    /// restore point gives no `viewportY`.
    public var pixelError: Double?
    public var confidence: Double
    /// The reader was last active on another device (a device switch).
    public var afterSwitch = false
    /// The pipeline answered nothing on a timeline that holds the expected post: a miss, with
    /// no index or pixel error and confidence 0.
    public var noAnswer = false
    /// The input was synced from another device and lands the reader farther from the expected
    /// post than this device's own state would have: sync took the reader back to a place they
    /// had left. Nil when the input was not synced.
    public var backJump: Bool?
    /// The merge policy asked the reader where to continue; the reader answered as the truth
    /// says (the offered position that lands nearest the expected post), and the score is of
    /// that answer.
    public var prompted = false
    /// The session's truth says the reader's reading had diverged across devices: asking was
    /// right (`SessionEvent.Expected.diverged`).
    public var diverged = false
    /// "N new above you" where the reader landed (`UnreadCount`, against what the device has
    /// read), when the session gives the truth to score it against (`Expected.unread`).
    public var unread: Int?
    /// The truth: how many posts above the expected post the reader had not seen.
    public var expectedUnread: Int?

    public init(
        expectedIndex: Int, restoredIndex: Int, exact: Bool, within1: Bool, indexError: Int, pixelError: Double?,
        confidence: Double
    ) {
        self.expectedIndex = expectedIndex
        self.restoredIndex = restoredIndex
        self.exact = exact
        self.within1 = within1
        self.indexError = indexError
        self.pixelError = pixelError
        self.confidence = confidence
    }
}

/// What one pipeline decided at one restore point, and how good it was.
public struct RestoreEvaluation: Sendable {
    /// Where the reader lands: the pipeline's restoration after the resume policy.
    public var restoration: Restoration?
    /// The pipeline's own answer, before the resume policy.
    public var pipelineRestoration: Restoration?
    public var trace: [StageVerdict]
    /// Whether the resume policy restores without asking.
    public var restoresSilently: Bool
    /// The time the pipeline took: no I/O, and not the one-time building of the timeline's
    /// index or text index.
    public var latencyNanoseconds: UInt64
    /// Nil when the point cannot be scored; `unscoredReason` says why.
    public var score: RestoreScore?
    public var unscoredReason: String?
    /// What reaching the post cost at this point (version 3), the same for every pipeline.
    public var reach: RestorePoint.Reach?

    public init(
        restoration: Restoration?, pipelineRestoration: Restoration?, trace: [StageVerdict], restoresSilently: Bool,
        latencyNanoseconds: UInt64, score: RestoreScore?, unscoredReason: String? = nil
    ) {
        self.restoration = restoration
        self.pipelineRestoration = pipelineRestoration
        self.trace = trace
        self.restoresSilently = restoresSilently
        self.latencyNanoseconds = latencyNanoseconds
        self.score = score
        self.unscoredReason = unscoredReason
    }

    /// Runs `pipeline` at `point` and scores it.
    public static func evaluate(_ point: RestorePoint, pipeline: Pipeline, policy: ResumePolicy) -> RestoreEvaluation {
        let request = point.request
        let textIndexBuilt = point.index.textIndexBuildNanoseconds != nil
        let started = DispatchTime.now().uptimeNanoseconds
        let outcome = pipeline.restore(request)
        var latency = DispatchTime.now().uptimeNanoseconds &- started
        // Building the text index is a one-time cost per timeline, like the index itself, and
        // falls on whichever pipeline needs it first: it is left out so that pipelines compare fairly.
        if !textIndexBuilt, let build = point.index.textIndexBuildNanoseconds { latency = latency > build ? latency - build : 0 }
        var landing = policy.apply(outcome.restoration, after: point.close, in: point.index)
        var trace = outcome.trace
        var pipelineRestoration = outcome.restoration
        let frame = point.serverIndex ?? point.index
        let expectedIndex = frame.index(of: point.expected.postId)
        // Asked where to continue, the reader answers as the truth says: the offered position
        // that lands nearest the expected post.
        if point.offer.count > 1, let expectedIndex {
            func error(_ restoration: Restoration?) -> Int {
                restoration.map { abs(place(of: $0, in: frame, from: point.index) - expectedIndex) } ?? Int.max
            }
            for alternative in point.offer.dropFirst() {
                let other = pipeline.restore(RestorationRequest(snapshot: alternative, index: point.index, direction: point.direction))
                let otherLanding = policy.apply(other.restoration, after: point.close, in: point.index)
                if error(otherLanding) < error(landing) {
                    (landing, trace, pipelineRestoration) = (otherLanding, other.trace, other.restoration)
                }
            }
        }
        var evaluation = RestoreEvaluation(
            restoration: landing, pipelineRestoration: pipelineRestoration, trace: trace,
            restoresSilently: point.offer.count < 2 && policy.restoresSilently(after: point.close, confidence: landing?.confidence ?? 0),
            latencyNanoseconds: latency, score: nil, unscoredReason: nil)
        // On a device with a cache of its own (version 3) the truth is measured on the server's
        // timeline: the cache may lack the expected post, and a restore that did not reach it
        // is a miss, not a point left out.
        guard let expectedIndex else {
            evaluation.unscoredReason =
                frame.count == 0
                ? "the timeline is empty at the restore point; not scored"
                : "the expected post \(point.expected.postId) is not in the timeline at the restore point; not scored"
            return evaluation
        }
        evaluation.reach = point.reach
        // Whether a point is scored depends on the point alone, never on the pipeline: one that
        // answers nothing misses, so a pipeline that answers less cannot look better.
        guard let landing else {
            var score = RestoreScore(
                expectedIndex: expectedIndex, restoredIndex: -1, exact: false, within1: false, indexError: 0,
                pixelError: nil, confidence: 0)
            score.afterSwitch = point.afterSwitch
            score.noAnswer = true
            score.prompted = point.offer.count > 1
            score.diverged = point.expected.diverged
            score.expectedUnread = point.expected.unread
            evaluation.score = score
            return evaluation
        }
        let landedIndex = place(of: landing, in: frame, from: point.index)
        let indexError = landedIndex - expectedIndex
        var pixelError: Double?
        if let viewportY = point.expected.viewportY, let expectedHere = point.index.index(of: point.expected.postId) {
            pixelError = abs(landing.contentOffset - (point.index.y(of: expectedHere) - viewportY))
        }
        var score = RestoreScore(
            expectedIndex: expectedIndex, restoredIndex: landedIndex,
            exact: landing.postId == point.expected.postId, within1: abs(indexError) <= 1,
            indexError: indexError, pixelError: pixelError, confidence: landing.confidence)
        score.afterSwitch = point.afterSwitch
        score.prompted = point.offer.count > 1
        score.diverged = point.expected.diverged
        if let truth = point.expected.unread {
            score.expectedUnread = truth
            score.unread =
                point.unreadCounts.map { $0[min(max(0, landing.index), $0.count - 1)] }
                ?? UnreadCount.above(landing.index, in: point.index, read: point.read)
        }
        if let own = point.ownInput {
            let ownOutcome = pipeline.restore(RestorationRequest(snapshot: own.input, index: point.index, direction: point.direction))
            let ownLanding = policy.apply(ownOutcome.restoration, after: point.close, in: point.index)
            score.backJump = ownLanding.map { abs(indexError) > abs(place(of: $0, in: frame, from: point.index) - expectedIndex) } ?? false
        }
        evaluation.score = score
        return evaluation
    }

    /// Where `restoration` (on `device`'s timeline) lands in `frame`: the same post, or, when
    /// the server no longer has it, the post written closest after it.
    static func place(of restoration: Restoration, in frame: TimelineIndex, from device: TimelineIndex) -> Int {
        guard frame !== device else { return restoration.index }
        if let found = frame.index(of: restoration.postId) { return found }
        guard frame.count > 0, device.posts.indices.contains(restoration.index) else { return 0 }
        let position = min(frame.timeOrderPosition(atOrAfter: device.posts[restoration.index].createdAt), frame.count - 1)
        return frame.displayIndex(atTimeOrderPosition: position)
    }
}
