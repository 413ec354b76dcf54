import Foundation
import Testing
import TimelineEngineCore
import TimelineEnginePositionTracking
import TimelineEngineRestoration
import TimelineEngineSessionFormat
import TimelineEngineSessionReplay

/// Hand-built sessions: ten posts of 100 pt, a 300 pt viewport, the default tracker settings
/// (autosave every 5 s and 1 s after scrolling rests, anchor visible at 30 %, live anchor good
/// for 30 s in the background).
struct Script {
    static let start = Date(timeIntervalSince1970: 1_767_261_600)
    static let posts = (0..<10).map {
        Post(id: "p\($0)", createdAt: start.addingTimeInterval(Double(-60 * $0)), text: "post number \($0)", height: 100)
    }
    static let header = SessionHeader(id: "hand", device: "d", timeline: "home", viewport: .init(width: 200, height: 300), startedAt: start)

    var replayer = try! SessionReplayer(header: Script.header, settings: ReplaySettings())
    var points: [RestorePoint] = []

    mutating func at(_ seconds: Double, _ kind: SessionEvent.Kind) {
        if let point = replayer.apply(SessionEvent(at: Script.start.addingTimeInterval(seconds), kind), line: points.count + 1) {
            points.append(point)
        }
    }

    mutating func restore(_ seconds: Double, expecting id: String, viewportY: Double? = nil, tag: String? = nil) -> RestorePoint {
        at(seconds, .restore(tag: tag, expected: .init(postId: id, viewportY: viewportY)))
        return points.last!
    }
}

@Suite(.timeLimit(.minutes(10))) struct SessionReplayerTests {
    @Test func followsTheFormatsReplaySemanticsEventByEvent() {
        var script = Script()
        script.at(0, .lifecycle(.launch))
        script.at(0, .timeline(reason: .initial, posts: Script.posts))
        // p2 spans 200–300: 50 % visible at offset 250, so it is the anchor; the first scroll saves.
        script.at(1, .scroll(offset: 250))
        #expect(script.replayer.tracker.history.map(\.postId) == ["p2"])
        // p5 is 20 % visible at 580, under the threshold: the anchor is p6. Only 1 s since the save: not saved.
        script.at(2, .scroll(offset: 580))
        #expect(script.replayer.tracker.history.map(\.postId) == ["p2"])
        var point = script.restore(3, expecting: "p6", viewportY: 20)
        #expect(point.inputSource == .liveAnchor)
        #expect(point.input?.postId == "p6")
        #expect(point.input?.viewportY == 20)
        #expect(point.close == .hard)  // launched without a clean background before
        // A restore changes nothing: the same question gets the same answer.
        #expect(script.restore(3, expecting: "p6").input?.postId == "p6")
        #expect(script.replayer.tracker.history.map(\.postId) == ["p2"])
        // A reader resting on a post for 38 s is still on it: the live anchor answers.
        point = script.restore(40, expecting: "p6")
        #expect(point.inputSource == .liveAnchor)
        #expect(point.input?.postId == "p6")
        // The next scroll first makes the trailing save that came due 1 s after the scroll at
        // 2 s; 5 s or more since that save, this scroll saves too.
        script.at(41, .scroll(offset: 0))
        #expect(script.replayer.tracker.history.map(\.postId) == ["p0", "p6", "p2"])
        script.at(42, .scroll(offset: 400))
        // Background makes the trailing save due at 43 s (p4), then saves the anchor at the last
        // offset against the current timeline, which has changed since: two posts on top move p4
        // down to 600–700, so the anchor at 400 is p2.
        script.at(
            43,
            .insert(index: 0, posts: [Post(id: "n1", createdAt: Script.start, height: 100), Post(id: "n2", createdAt: Script.start, height: 100)]))
        script.at(44, .lifecycle(.background))
        #expect(script.replayer.tracker.history.map(\.postId) == ["p2", "p4", "p0", "p6"])
        // Back within 30 s without a terminate: a soft close, and the live anchor (still p4 from
        // the scroll at 42 s) answers.
        script.at(50, .lifecycle(.foreground))
        point = script.restore(51, expecting: "p4")
        #expect(point.close == .soft)
        #expect(point.inputSource == .liveAnchor)
        #expect(point.input?.postId == "p4")
        // 8 s since the last save: this scroll saves p7. The next one, 0.5 s later, waits for
        // its trailing save, and the terminate 0.5 s after it comes first: terminate saves
        // nothing, and the waiting save is lost with the process.
        script.at(52, .scroll(offset: 900))
        script.at(52.5, .scroll(offset: 600))
        script.at(53, .lifecycle(.terminate))
        #expect(script.replayer.tracker.history.map(\.postId) == ["p7", "p2", "p4", "p0", "p6"])
        // After the launch the live anchor is gone and the most recent saved snapshot answers;
        // the terminate makes it a hard close.
        script.at(60, .lifecycle(.launch))
        point = script.restore(61, expecting: "p4")
        #expect(point.inputSource == .savedSnapshot)
        #expect(point.input?.postId == "p7")
        #expect(point.close == .hard)
        // A background with no scroll since the launch saves nothing.
        script.at(62, .lifecycle(.background))
        #expect(script.replayer.tracker.history.count == 5)
    }

    @Test func withNoSnapshotTheFallbackApplies() throws {
        var script = Script()
        script.at(0, .timeline(reason: .initial, posts: Script.posts))
        let point = script.restore(1, expecting: "p0")
        #expect(point.inputSource == .none)
        #expect(point.input == nil)
        let pipeline = try PipelineBuilder().build(spec: "ExactMatch > Fallback(Mode: TopOfTimeline)")
        let evaluation = RestoreEvaluation.evaluate(point, pipeline: pipeline, policy: ResumePolicy())
        #expect(evaluation.restoration?.strategy == "Fallback")
        #expect(evaluation.score?.exact == true)
    }

    @Test func timelineEventsBuildTheTimeline() {
        var timeline = ReplayTimeline(viewportHeight: 300)
        let posts = Script.posts
        timeline.apply(.timeline(reason: .initial, posts: Array(posts[0..<3])))
        timeline.apply(.insert(index: 99, posts: [posts[5]]))  // past the end: appends
        timeline.apply(.insert(index: 1, posts: [posts[6]]))
        timeline.apply(.remove(ids: ["p0", "missing"]))
        var taller = posts[2]
        taller.height = 250
        timeline.apply(.update(posts: [taller, posts[9]]))  // p9 is not in the timeline: ignored
        #expect(timeline.posts.map(\.id) == ["p6", "p1", "p2", "p5"])
        #expect(timeline.index().y(of: 3) == 100 + 100 + 250)
        // Heights missing from the events use the estimate.
        timeline.apply(.timeline(reason: .replace, posts: [Post(id: "x", createdAt: Script.start, text: "hello")]))
        #expect(timeline.index().contentHeight == HeightEstimate.height(forText: "hello"))
    }
}

@Suite(.timeLimit(.minutes(10))) struct RestoreEvaluationTests {
    func point(expecting id: String, viewportY: Double?, input: PositionSnapshot?) -> RestorePoint {
        RestorePoint(
            line: 1, at: Script.start, tag: "t", expected: .init(postId: id, viewportY: viewportY), input: input,
            inputSource: input == nil ? .none : .liveAnchor, close: .soft,
            index: TimelineIndex(Timeline(posts: Script.posts, viewportHeight: 300)))
    }

    @Test func scoresAnExactRestoreToThePixel() throws {
        let pipeline = try PipelineBuilder().build(spec: "ExactMatch > Fallback")
        let input = PositionSnapshot(postId: "p4", viewportY: -30, contentOffset: 430)
        let score = try #require(
            RestoreEvaluation.evaluate(
                point(expecting: "p4", viewportY: -30, input: input), pipeline: pipeline,
                policy: ResumePolicy()
            ).score)
        #expect(
            score
                == RestoreScore(
                    expectedIndex: 4, restoredIndex: 4, exact: true, within1: true, indexError: 0, pixelError: 0,
                    confidence: 1))
    }

    @Test func signsTheIndexErrorAndMeasuresPixelsUnclamped() throws {
        // The saved post is gone; TopOfTimeline lands at index 0, offset 0: the reader re-reads
        // six posts. Expected offset = y(p6) − 50 = 550.
        let pipeline = try PipelineBuilder().build(spec: "ExactMatch > Fallback(Mode: TopOfTimeline)")
        let input = PositionSnapshot(postId: "gone", viewportY: 50, contentOffset: 550)
        var score = try #require(
            RestoreEvaluation.evaluate(
                point(expecting: "p6", viewportY: 50, input: input), pipeline: pipeline,
                policy: ResumePolicy()
            ).score)
        #expect(score.indexError == -6)
        #expect(score.within1 == false)
        #expect(score.pixelError == 550)
        #expect(score.confidence == 0.1)
        // Landing below: LastKnownPosition at 850 is p8 while the truth is p6: two posts skipped.
        let below = try PipelineBuilder().build(spec: "ExactMatch > Fallback(Mode: LastKnownPosition)")
        score = try #require(
            RestoreEvaluation.evaluate(
                point(
                    expecting: "p6", viewportY: nil,
                    input: PositionSnapshot(postId: "gone", contentOffset: 850)),
                pipeline: below, policy: ResumePolicy()
            ).score)
        #expect(score.indexError == 1)
        #expect(score.pixelError == nil)
    }

    @Test func aMissingExpectedPostIsNotScored() throws {
        let pipeline = try PipelineBuilder().build(spec: "ExactMatch > Fallback")
        let evaluation = RestoreEvaluation.evaluate(
            point(expecting: "nowhere", viewportY: nil, input: PositionSnapshot(postId: "p1")),
            pipeline: pipeline, policy: ResumePolicy())
        #expect(evaluation.score == nil)
        #expect(evaluation.unscoredReason == "the expected post nowhere is not in the timeline at the restore point; not scored")
    }

    @Test func aHardCloseCanSendTheReaderToTheTop() throws {
        let pipeline = try PipelineBuilder().build(spec: "ExactMatch > Fallback")
        var hard = point(expecting: "p4", viewportY: nil, input: PositionSnapshot(postId: "p4"))
        hard.close = .hard
        let policy = ResumePolicy(afterHardClose: .topOfTimeline)
        let evaluation = RestoreEvaluation.evaluate(hard, pipeline: pipeline, policy: policy)
        #expect(evaluation.pipelineRestoration?.postId == "p4")
        #expect(evaluation.restoration?.postId == "p0")
        #expect(evaluation.score?.indexError == -4)
    }
}
