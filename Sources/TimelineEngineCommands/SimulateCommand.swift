import ArgumentParser
import Foundation
import TimelineEngineKit
import TimelineEngineSessionSimulation

/// `engine simulate`: writes reading sessions simulated from a real post corpus.
struct SimulateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "simulate",
        abstract: "Write simulated reading sessions built from real posts.",
        discussion: """
            Each session follows one reader through several visits to a timeline made of the \
            corpus's posts: reading and scrolling follow published reading figures \
            (docs/SIMULATION.md), and each visit ends in a refresh, a deletion, a re-draft, an \
            algorithmic re-rank, a soft or hard relaunch, a long pause or nothing, followed by a \
            tagged restore point whose expected post is the anchor at the reader's last scroll.

            The output is deterministic for a corpus, seed, session count and configuration: \
            DIR/session-0001.jsonl, DIR/session-0002.jsonl, … The configuration (default: the \
            built-in defaults) supplies AnchorVisibilityThreshold, AnchorMaxAge and \
            Resume.HardCloseThreshold.

            With --devices, each session follows one reader on a phone, a laptop and, in half \
            the sessions, a tablet (format version 2), and each visit ends in a device case: a \
            device switch, reading on two devices at once, a device offline for a day, a laptop \
            clock an hour fast, a glance at a stale device, scrolling back on purpose or by \
            hand, the post deleted before the switch, or three devices in a row; its restore \
            point expects the reader's last reading position on any device (a glance is not \
            reading).

            With --reading up, the reader catches up from where they stopped towards the newest \
            posts, instead of reading down from the top.

            With --devices --caches, each device keeps a cache of its own (format version 3): \
            the reader reads on the phone, and hours or a day later, with hundreds of new \
            posts in between, picks up the laptop, which fetches its head page and must reach \
            the reader's post across the gap. --api says how the server pages: mastodon (by \
            post id, the default) or bluesky (from the top only).

            Example:
              engine simulate --posts posts.jsonl --sessions 12 --seed 7 -o sessions/
              engine simulate --posts posts.jsonl --sessions 8 --seed 7 --devices -o d/
              engine simulate --posts p.jsonl --sessions 8 --seed 7 --devices --caches -o c/
            """
    )

    @Option(name: .long, help: "A post corpus: JSON Lines of {id, createdAt, author?, text?}.")
    var posts: String

    @Option(name: .long, parsing: .unconditional, help: "How many sessions to write.")
    var sessions: Int

    @Option(
        name: .long, parsing: .unconditional, help: "The random seed, from 0 to 18446744073709551615.",
        transform: { text in
            guard let seed = UInt64(text) else { throw ValidationError("--seed takes an integer from 0 to 18446744073709551615") }
            return seed
        })
    var seed: UInt64

    @Option(name: .shortAndLong, help: "The directory to write the sessions to (created if needed).")
    var output: String

    @Option(name: .long, help: "chronological, algorithmic or mixed (half and half).")
    var feed: SimulationOptions.FeedMode = .mixed

    @Option(name: .long, help: "A configuration whose tracker and resume settings the ground truth follows.")
    var config: String?

    @Flag(name: .long, help: "Sessions on several devices, a phone, a laptop and sometimes a tablet (format version 2), with the multi-device cases.")
    var devices = false

    @Option(
        name: .long,
        help: "Which way the reader reads the newest-first feed: down (from the top into older posts) or up (catching up towards the newest).")
    var reading: SimulationOptions.Reading = .down

    @Flag(name: .long, help: "With --devices: each device keeps a cache of its own and fetches head pages (format version 3).")
    var caches = false

    @Flag(
        name: .long,
        help:
            "With --devices: one episode in four is a true divergence (tag diverged): two devices read different parts of the timeline without hearing from each other, and the restore point marks it."
    )
    var divergences = false

    @Option(name: .long, help: "With --caches: how the server pages, mastodon (by post id) or bluesky (from the top only).")
    var api: SessionHeader.API = .mastodon

    @Option(
        name: .long,
        help:
            "With --api bluesky: how the server's cursors work on chronological feeds: time-keyed (the reference AppView's, any such cursor honoured), opaque (a cursor it did not give refused) or issued-only (time-keyed in shape, only its own honoured). Algorithmic feeds' cursors are opaque."
    )
    var cursors: SessionHeader.Cursors = .timeKeyed

    @OptionGroup var lenientOption: LenientOption

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard sessions >= 1 else { throw ValidationError("--sessions must be at least 1, got \(sessions)") }
        if caches, !devices { throw ValidationError("--caches needs --devices") }
        if divergences, !devices { throw ValidationError("--divergences needs --devices") }
        if cursors != .timeKeyed, api != .bluesky { throw ValidationError("--cursors needs --api bluesky") }
    }

    func run() throws {
        let configuration = try config.map { try ConfigurationInput.load($0, lenient: lenientOption.lenient).configuration } ?? .defaults
        let data = try FileInput.read(posts)
        let corpus: [Post]
        do {
            corpus = try TimelineFormat.read(data, format: .jsonl).posts
        } catch {
            throw CommandFailure(.invalidInput, "\(posts):\(error.location == nil ? " " : "")\(error.description)")
        }
        guard corpus.count >= SessionSimulator.minimumCorpusSize else {
            throw CommandFailure(
                .invalidInput,
                "\(posts): error: the corpus has \(corpus.count) posts; simulation needs at least \(SessionSimulator.minimumCorpusSize)")
        }
        let options = SimulationOptions(
            sessions: sessions, seed: seed, feed: feed,
            tracker: PositionTracker.Settings(configuration: configuration),
            hardCloseThreshold: configuration.resume.hardCloseThreshold, devices: devices, reading: reading,
            caches: caches, api: api, cursors: cursors, divergences: divergences)
        let simulator = SessionSimulator(corpus: corpus, options: options)
        let directory = URL(fileURLWithPath: output, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure(.unreadable, "\(output): error: cannot create the directory: \(FileErrorReason.describe(error))")
        }
        var tags: [String: Int] = [:]
        var restorePoints = 0
        let digits = max(4, String(sessions).count)
        for number in 1...sessions {
            let session = simulator.session(number: number)
            for event in session.events {
                if case .restore(let tag, _) = event.kind {
                    tags[tag ?? "untagged", default: 0] += 1
                    restorePoints += 1
                }
            }
            let name = "session-" + String(repeating: "0", count: max(0, digits - String(number).count)) + String(number) + ".jsonl"
            let file = directory.appendingPathComponent(name)
            do {
                try Data(SessionWriter.text(of: session).utf8).write(to: file)
            } catch {
                throw CommandFailure(.unreadable, "\(file.path): error: cannot write: \(FileErrorReason.describe(error))")
            }
        }
        let breakdown = tags.keys.sorted().map { "\($0) \(tags[$0]!)" }.joined(separator: ", ")
        if !logging.quiet {
            Console.error("wrote \(sessions) session\(sessions == 1 ? "" : "s") with \(restorePoints) restore points (\(breakdown)) to \(output)")
        }
    }
}

extension SimulationOptions.FeedMode: ExpressibleByArgument {}
extension SimulationOptions.Reading: ExpressibleByArgument {}
extension SessionHeader.Cursors: ExpressibleByArgument {}

extension SessionHeader.API: ExpressibleByArgument {}
