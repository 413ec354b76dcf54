import ArgumentParser
import Foundation
import TimelineEngineKit
import TimelineEngineSessionComparison
import TimelineEngineSessionReplay

/// `engine replay SESSION --config C [--strategy SPEC]`: every restore point of one session,
/// step by step, for debugging a strategy.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay one recorded session and show every restore point step by step.",
        discussion: """
            For each restore point: how the app was closed, the reading direction learned by \
            then, the pipeline's input (the live anchor or a saved snapshot), each stage's candidate and verdict, where the reader \
            lands, the expected post, and the metrics engine compare counts.

            Exit codes: 0 replayed (warnings included), 1 the session or configuration cannot be \
            read, 2 a bad path, spec or usage.

            Example:
              engine replay sessions/session-0001.jsonl --config app.plist
            """
    )

    @Argument(help: "The session file (.jsonl).")
    var session: String

    @Option(name: .long, help: "The configuration file (plist, Info.plist or JSON).")
    var config: String

    @Option(name: .long, help: "A pipeline in spec notation, instead of the configuration's.")
    var strategy: String?

    @Flag(
        name: .long,
        help:
            "For each restore point on several devices: the register's heads, the merge's winner and why, and why each other head was or was not offered."
    )
    var explain = false

    @OptionGroup var lenientOption: LenientOption

    @OptionGroup var plugins: PluginOptions

    @OptionGroup var logging: LoggingOptions

    func run() throws {
        let engine = try ConfigurationInput.load(config, lenient: lenientOption.lenient, plugins: plugins.paths)
        let configuration = engine.configuration
        let pipeline = try PipelineInput.build(engine, strategy: strategy)
        var reader: SessionReader
        do {
            reader = try SessionReader(contentsOf: URL(fileURLWithPath: session), name: session)
        } catch {
            throw CommandFailure(error.isUnreadable ? .unreadable : .invalidInput, error.description)
        }
        let settings = ReplaySettings(configuration: configuration)
        var replayer: SessionReplayer
        do {
            replayer = try SessionReplayer(header: reader.header, settings: settings, registry: engine.registry)
        } catch {
            throw CommandFailure(.invalidInput, "\(session): error: cannot replay: \(error.description)")
        }
        let header = reader.header
        Console.out(
            "session \(header.id): \(header.device), \(header.feed.rawValue) \(header.timeline) timeline, viewport \(Self.points(header.viewport.width)) × \(Self.points(header.viewport.height))"
        )
        Console.out("pipeline: \(pipeline.summary)")
        var count = 0
        var totals = MetricsAccumulator()
        for warning in reader.takeWarnings() { Console.error(warning.description) }
        while let event = reader.next() {
            for warning in reader.takeWarnings() { Console.error(warning.description) }
            guard let point = replayer.apply(event, line: reader.line) else { continue }
            count += 1
            let evaluation = RestoreEvaluation.evaluate(point, pipeline: pipeline, policy: settings.policy)
            replayer.restored(evaluation, at: point)
            describe(point, evaluation, number: count)
            if explain { explainMerge(on: point.device ?? header.device, replayer) }
            totals.add(evaluation)
        }
        for warning in reader.takeWarnings() { Console.error(warning.description) }
        Console.out("")
        Console.out(
            "\(count) restore point\(count == 1 ? "" : "s"), \(totals.restorePoints) scored: exact \(totals.exact), within1 \(totals.within1)")
    }

    /// The merge as `device` saw it at the restore point: each head, the winner and the way it
    /// won, and why each other head was or was not offered.
    private func explainMerge(on device: String, _ replayer: SessionReplayer) {
        guard let register = replayer.register(on: device), let resolution = replayer.resolution(on: device) else { return }
        Console.out("  merge on \(device), merge policy \(replayer.mergePolicyName ?? "none"):")
        for head in register.heads {
            var line = "    \(head.device)#\(head.sequence): "
            line += head.snapshot.map { "post \($0.postId)" } ?? "a tombstone"
            if let visit = head.visit { line += ", visit \(String(format: "%.1f", visit.seconds)) s and \(visit.posts) posts" }
            line += ", saved \(Timestamp.format(head.savedAt))"
            if head.isReset {
                line += ", a move back"
            } else if !head.epoch.device.isEmpty {
                line += ", after a move back on \(head.epoch.device)"
            }
            if head == resolution.winner { line += " — the winner (\(resolution.reason))" }
            Console.out(line)
        }
        for note in replayer.offerNotes(on: device) { Console.out("    \(note)") }
        Console.out(
            resolution.prompts
                ? "    asks the reader: \(resolution.offer.map { "\($0.device)#\($0.sequence)" }.joined(separator: " or "))" : "    restores silently"
        )
    }

    private func describe(_ point: RestorePoint, _ evaluation: RestoreEvaluation, number: Int) {
        let posts = point.index.posts
        Console.out("")
        Console.out("restore point \(number) · line \(point.line) · \(Timestamp.format(point.at)) · tag \(point.tag)")
        let direction = point.direction.map { "reading \($0.rawValue.lowercased()) (learned)" } ?? "no reading direction learned"
        Console.out("  close: \(point.close.rawValue); timeline: \(posts.count) posts; \(direction)")
        if let input = point.input {
            var line = "  input (\(point.inputSource.rawValue)): post \(input.postId)"
            if let index = input.index, let count = input.timelineCount { line += " at index \(index) of \(count)" }
            line += ", viewportY \(Self.points(input.viewportY)), offset \(Self.points(input.contentOffset))"
            if let saved = input.savedAt { line += ", taken \(Timestamp.format(saved))" }
            Console.out(line)
        } else {
            Console.out("  input: no snapshot; the fallback applies")
        }
        for line in TraceText.lines(evaluation.trace, posts: posts, indent: 2, showIndex: true) { Console.out(line) }
        if let restoration = evaluation.restoration {
            Console.out(
                "  result: post \(restoration.postId) at index \(restoration.index), offset \(Self.points(restoration.contentOffset)), viewportY \(Self.points(restoration.viewportY)); \(restoration.method.rawValue) by \(restoration.strategy), confidence \(String(format: "%.2f", restoration.confidence)), \(evaluation.restoresSilently ? "restored silently" : "offered as a suggestion")"
            )
        } else {
            Console.out(point.index.count == 0 ? "  result: none (the timeline is empty)" : "  result: none (no stage answered)")
        }
        var expected = "  expected: post \(point.expected.postId)"
        if let position = point.index.index(of: point.expected.postId) { expected += " at index \(position)" }
        if let viewportY = point.expected.viewportY { expected += ", viewportY \(Self.points(viewportY))" }
        Console.out(expected)
        if let score = evaluation.score, score.noAnswer {
            Console.out(
                "  metrics: no answer: a miss (exact no, within1 no), latency \(String(format: "%.1f", Double(evaluation.latencyNanoseconds) / 1000)) µs"
            )
        } else if let score = evaluation.score {
            var metrics = "  metrics: exact \(score.exact ? "yes" : "no"), within1 \(score.within1 ? "yes" : "no"), indexError \(score.indexError)"
            if let pixels = score.pixelError { metrics += ", pixelError \(Self.points(pixels))" }
            metrics += ", latency \(String(format: "%.1f", Double(evaluation.latencyNanoseconds) / 1000)) µs"
            Console.out(metrics)
        } else if let reason = evaluation.unscoredReason {
            Console.out("  metrics: \(reason)")
        }
    }

    static func points(_ value: Double) -> String { RestoreCommand.points(value) }
}
