import Foundation
import PropertyBased
import Testing
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineJSONText
import TimelineEnginePositionTracking
import TimelineEngineRestoration
import TimelineEngineRestorationModel
import TimelineEngineSessionComparison
import TimelineEngineSessionFormat
import TimelineEngineSessionReplay
import TimelineEngineTestSupport
import TimelineEngineValueTree

/// Numbers that pass a JSON reader but overflow when converted (`Int(1e20)` traps), put into
/// every numeric field of every reader: each is either rejected with a line, or read and carried
/// through restore, replay, metrics and JSON output without a trap or a non-finite number.
@Suite("Extreme numbers in every reader", .timeLimit(.minutes(10)))
struct ExtremeNumberTests {
    /// As written in the files.
    static let extremes = [
        "0", "-0", "1", "-1", "0.5", "1e-400", "-1e-400", "4.9e-324", "1e20", "-1e20", "1e300", "1e308", "-1e308", "1.7976931348623157e308",
        "9223372036854775807", "9223372036854775808", "-9223372036854775809", "18446744073709551616", "2147483648", "1e400",
        "123456789012345678901234567890", "1000000", "1000000.5", "1000000000000", "1000000000001", "-1000000000001",
    ]

    static let post = #"{"id":"b","createdAt":"2022-12-07T21:30:40Z","text":"second post"}"#

    /// Timeline and snapshot documents with `N` in one numeric field.
    static let restoreCases: [(timeline: String, snapshot: String)] = [
        (#"{"id":"a","createdAt":"2022-12-07T21:31:40Z","text":"x","height":N}"# + "\n" + post, #"{"postId":"a"}"#),
        (#"{"viewportHeight":N,"posts":[{"id":"a","createdAt":"2022-12-07T21:31:40Z"},"# + post + "]}", #"{"postId":"a"}"#),
        (post, #"{"postId":"gone","viewportY":N}"#),
        (post, #"{"postId":"gone","contentOffset":N}"#),
        (post, #"{"postId":"gone","viewportHeight":N}"#),
        (post, #"{"postId":"gone","index":N,"timelineCount":40}"#),
        (post, #"{"postId":"gone","index":3,"timelineCount":N}"#),
        (post, #"{"postId":"b","viewportY":N,"contentOffset":N}"#),
    ]

    @Test("timelines and snapshots: rejected with a line, or restored to finite figures")
    func restore() throws {
        let pipelines =
            try ["ExactMatch > Fallback(Mode: LastKnownPosition)", "NeighborAnchor > TemporalProximity > Fallback"]
            .map { try PipelineBuilder().build(spec: $0) } + [try PipelineBuilder().build()]
        for number in Self.extremes {
            for (timelineText, snapshotText) in Self.restoreCases {
                let timelineData = Data(timelineText.replacingOccurrences(of: "N", with: number).utf8)
                let snapshotData = Data(snapshotText.replacingOccurrences(of: "N", with: number).utf8)
                let timeline: Timeline
                let snapshot: PositionSnapshot
                do {
                    timeline = try TimelineFormat.read(timelineData)
                    snapshot = try SnapshotCoding.read(snapshotData)
                } catch {
                    #expect(error.location != nil, "\(number): \(error)")
                    continue
                }
                let index = TimelineIndex(timeline)
                for pipeline in pipelines {
                    let outcome = pipeline.restore(RestorationRequest(snapshot: snapshot, index: index))
                    guard let restoration = outcome.restoration else { continue }
                    #expect(
                        restoration.contentOffset.isFinite && restoration.viewportY.isFinite && restoration.confidence.isFinite,
                        "\(number) in \(timelineText) / \(snapshotText)")
                    #expect(throws: Never.self) { try JSONWriter().write(SnapshotCoding.value(of: restoration)) }
                }
            }
        }
    }

    static let header =
        #"{"type":"session","version":1,"id":"x","device":"d","timeline":"home","viewport":{"width":390,"height":844},"startedAt":"2022-12-07T15:00:00Z"}"#
    static let timeline =
        #"{"type":"timeline","at":"2022-12-07T15:00:00Z","reason":"initial","posts":[{"id":"a","createdAt":"2022-12-07T14:00:00Z","height":300},{"id":"b","createdAt":"2022-12-07T13:00:00Z","height":300}]}"#

    /// Sessions with `N` in one numeric field.
    static let sessionCases: [[String]] = [
        [header.replacingOccurrences(of: #""width":390"#, with: #""width":N"#), timeline],
        [header.replacingOccurrences(of: #""height":844"#, with: #""height":N"#), timeline],
        [header.replacingOccurrences(of: #""version":1"#, with: #""version":N"#), timeline],
        [header, timeline.replacingOccurrences(of: #""height":300}"#, with: #""height":N}"#)],
        [header, timeline, #"{"type":"scroll","at":"2022-12-07T15:00:01Z","offset":N}"#],
        [header, timeline, #"{"type":"insert","at":"2022-12-07T15:00:01Z","index":N,"posts":[{"id":"c","createdAt":"2022-12-07T15:00:00Z"}]}"#],
        [header, timeline, #"{"type":"scroll","at":"2022-12-07T15:00:01Z","offset":250}"#],
    ]

    static let restoreLines = [
        #"{"type":"restore","at":"2022-12-07T15:00:40Z","tag":"t","expected":{"postId":"b","viewportY":N}}"#,
        #"{"type":"restore","at":"2022-12-07T15:00:41Z","tag":"t","expected":{"postId":"a","viewportY":-40}}"#,
    ]

    @Test("sessions: bad values are warnings or errors with a line, and replay, metrics and the JSON report stay finite")
    func sessions() throws {
        let pipeline = try PipelineBuilder().build()
        for number in Self.extremes {
            for lines in Self.sessionCases {
                let text = (lines + Self.restoreLines).joined(separator: "\n").replacingOccurrences(of: "N", with: number) + "\n"
                do {
                    var reader = try SessionReader(data: Data(text.utf8), name: "x.jsonl")
                    var replayer = try! SessionReplayer(header: reader.header, settings: ReplaySettings())
                    var metrics = MetricsAccumulator()
                    while let event = reader.next() {
                        if let point = replayer.apply(event, line: reader.line) {
                            metrics.add(RestoreEvaluation.evaluate(point, pipeline: pipeline, policy: ResumePolicy()))
                        }
                    }
                    for warning in reader.takeWarnings() { #expect(warning.line != nil, "\(number): \(warning)") }
                    var results = PipelineResults(name: "p", pipeline: pipeline.summary)
                    results.all = metrics
                    results.byTag = ["t": metrics]
                    let report = ComparisonReport(pipelines: [results])
                    #expect(throws: Never.self) { try JSONWriter().write(ComparisonReportCoding.value(of: report)) }
                } catch {
                    // Only the header can make a session unreadable, and it is on line 1.
                    #expect(error.line != nil, "\(number): \(error)")
                }
            }
        }
    }

    @Test("random doubles of any magnitude in a scroll offset and a post height never trap")
    func randomDoubles() async throws {
        let pipeline = try PipelineBuilder().build()
        await pinnedPropertyCheck(count: 300, input: zip(Gen.value(in: UInt64.min...UInt64.max), Gen.value(in: UInt64.min...UInt64.max))) {
            offsetBits, heightBits in
            let offset = Double(bitPattern: offsetBits)
            let height = Double(bitPattern: heightBits)
            guard offset.isFinite, height.isFinite else { return }
            let lines =
                [
                    Self.header, Self.timeline.replacingOccurrences(of: #""height":300}"#, with: #""height":\#(height)}"#),
                    #"{"type":"scroll","at":"2022-12-07T15:00:01Z","offset":\#(offset)}"#,
                ] + Self.restoreLines
            let text = lines.joined(separator: "\n").replacingOccurrences(of: "N", with: "0") + "\n"
            guard var reader = try? SessionReader(data: Data(text.utf8), name: "r.jsonl") else { return }
            var replayer = try SessionReplayer(header: reader.header, settings: ReplaySettings())
            var metrics = MetricsAccumulator()
            while let event = reader.next() {
                if let point = replayer.apply(event, line: reader.line) {
                    metrics.add(RestoreEvaluation.evaluate(point, pipeline: pipeline, policy: ResumePolicy()))
                }
            }
            #expect(metrics.restorePoints + metrics.unscored == 2)
        }
    }
}
