import ArgumentParser
import Foundation
import TimelineEngineKit

/// `engine restore --config C --timeline T --position P [--strategy SPEC] [--format text|json] [--explain]`.
struct RestoreCommand: AsyncParsableCommand {
    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case text
        case json
    }

    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Decide where to put the reader back in a timeline, and say why.",
        discussion: """
            The pipeline comes from the configuration (Restoration.Pipeline, or the default that \
            PositionPersistence implies) unless --strategy gives one in spec notation:
              'ExactMatch > TemporalProximity(Window: 1800) > Fallback(Mode: OldestPost)'
              'BestConfidence(ExactMatch, ContentSimilarity(Threshold: 0.5)) > Fallback'
            Stages separated by > form a FirstMatch; ViewportAnchor positions the result unless \
            the spec ends with another positioning stage, as in '… > Fallback | ViewportAnchor', \
            the form --explain prints.

            Timelines: the engine's JSON ({"posts": [...], "viewportHeight": N}), JSON Lines of \
            posts, a Mastodon home timeline or a Bluesky getTimeline response (detected, or \
            chosen with --timeline-format).

            Exit codes: 0 restored, 1 nothing to restore (an empty timeline, a pipeline without \
            Fallback that found nothing) or invalid input (--lenient runs with a configuration \
            that has errors, as the library does), \
            2 unreadable file or bad usage.

            Examples:
              engine restore --config app.plist --timeline t.json --position p.json
              engine restore --config Info.plist --timeline t.json --store s.sqlite
              engine restore --config app.plist --timeline t.jsonl --position p.json \\
                --explain --strategy 'ExactMatch > Fallback' --format json
            """
    )

    @Option(name: .long, help: "The configuration file (plist, Info.plist or JSON).")
    var config: String

    @Option(name: .long, help: "The current timeline.")
    var timeline: String

    @Option(name: .long, help: "The saved position (a PositionSnapshot as JSON).")
    var position: String?

    @Option(name: .long, help: "Restore from the newest position saved in this store instead of --position.")
    var store: String?

    @OptionGroup var scopeOptions: StoreScopeOptions

    @Option(name: .long, help: "A pipeline in spec notation, instead of the configuration's.")
    var strategy: String?

    @Option(name: .customLong("timeline-format"), help: "engine, jsonl, mastodon or bluesky (default: detected).")
    var timelineFormat: TimelineFormat?

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    @Flag(name: .long, help: "Show every stage's candidate and why it was taken or passed over.")
    var explain = false

    @OptionGroup var lenientOption: LenientOption

    @OptionGroup var plugins: PluginOptions

    @OptionGroup var logging: LoggingOptions

    func validate() throws {
        guard (position == nil) != (store == nil) else { throw ValidationError("give either --position FILE or --store PATH") }
    }

    func run() async throws {
        let engine = try ConfigurationInput.load(config, lenient: lenientOption.lenient, plugins: plugins.paths)

        let timelineValue = try readTimeline()
        let (snapshot, start, read) = try await readSnapshot(engine)
        let pipeline = try PipelineInput.build(engine, strategy: strategy)
        let index = TimelineIndex(timelineValue)
        KeptUntilExit.shared.keep(index)
        let outcome = pipeline.restore(RestorationRequest(snapshot: snapshot, index: index, direction: start?.direction))
        outcome.log(pipeline: pipeline, posts: index.count)

        // "N new above you", against what the store says this device has read.
        let unread = read.flatMap { read in outcome.restoration.map { UnreadCount.above($0.index, in: index, read: read) } }
        guard let restoration = outcome.restoration else {
            throw CommandFailure(
                .invalidInput,
                index.count == 0
                    ? "\(timeline): the timeline is empty; there is nothing to restore"
                    : "error: no stage of \(pipeline.summary) found a place in the \(index.count) posts of \(timeline); end the pipeline with Fallback to always find one"
            )
        }
        switch format {
        case .json:
            var value = outcome.value(pipeline: pipeline, index: index, explained: explain) ?? .null
            if let unread, case .dictionary(var members) = value.content {
                members["unreadAbove"] = Value.Member(value: .integer(unread))
                value = Value(.dictionary(members))
            }
            if let start, start.prompts, case .dictionary(var members) = value.content {
                // Where the merge policy asks, the positions to offer, the restored one first.
                members["offer"] = Value.Member(
                    value: .array(
                        start.offer.map { choice in
                            .dictionary([
                                ("postId", .string(choice.snapshot.postId)), ("device", .string(choice.device)),
                                ("savedAt", .string(Timestamp.format(choice.savedAt))),
                            ])
                        }))
                value = Value(.dictionary(members))
            }
            Console.outRaw(try JSONWriter(style: .pretty).write(value))
        case .text:
            if let start, start.source == .synced {
                Console.out("start: post \(TerminalText.escaped(start.snapshot?.postId ?? "")), synced from \(start.device ?? "another device")")
            }
            if let start, start.prompts {
                let choices = start.offer.map { "post \(TerminalText.escaped($0.snapshot.postId)) (\(TerminalText.escaped($0.device)))" }
                Console.out("ask the reader where to continue: \(choices.joined(separator: " or ")); the reading diverged across devices")
            }
            Console.out(
                "post \(TerminalText.escaped(restoration.postId)) at index \(restoration.index), content offset \(Self.points(restoration.contentOffset)), viewportY \(Self.points(restoration.viewportY))"
            )
            Console.out(
                "method \(restoration.method.rawValue) by \(restoration.strategy), confidence \(String(format: "%.2f", restoration.confidence))")
            if let unread { Console.out("\(unread) new above you") }
            Console.out(TerminalText.escaped(restoration.explanation, limit: .max))
            if explain {
                Console.out("")
                Console.out("pipeline: \(pipeline.summary)")
                for line in TraceText.lines(outcome.trace, posts: index.posts, indent: 1, showIndex: false) { Console.out(line) }
            }
        }
    }

    static func points(_ value: Double) -> String {
        value == value.rounded() ? "\(Value.describe(number: value)) pt" : String(format: "%.1f pt", value)
    }

    private func readTimeline() throws -> Timeline {
        let data = try FileInput.read(timeline, mapped: true)
        do {
            return try TimelineFormat.read(data, format: timelineFormat)
        } catch {
            throw CommandFailure(.invalidInput, "\(timeline):\(error.location == nil ? " " : "")\(error.description)")
        }
    }

    /// The snapshot to restore: with --store, where a restore starts by the one rule
    /// (`RestoreStart`: the register's winner when sync is on and another device wrote it, else
    /// the newest saved position); otherwise --position.
    private func readSnapshot(_ engine: ConfiguredEngine) async throws -> (PositionSnapshot, RestoreStart?, ReadPosts?) {
        if let store {
            // The merge policy alone: a restore needs neither the recovery phrase nor the transport.
            let policy: (any MergePolicy)?
            do {
                policy = try SyncComponents.restorePolicy(configuration: engine.configuration, registry: engine.registry)
            } catch {
                throw CommandFailure(.invalidInput, "error: \(error.description)")
            }
            let opened = try await StoreOptions.open(store, create: false)
            let start: RestoreStart
            let read: ReadPosts
            do {
                read = try await opened.positions.readPosts(scope: scopeOptions.scope)
                let inputs = try await opened.sync.restoreInputs(scope: scopeOptions.scope)
                start = RestoreStart.decide(
                    own: inputs.history.first, ownIsLive: false, ownDirection: .learned(fromHistory: inputs.history), register: inputs.register,
                    policy: policy, device: try await opened.sync.storedDeviceId())
            } catch {
                throw CommandFailure(error)
            }
            guard let snapshot = start.snapshot else {
                throw CommandFailure(
                    .invalidInput,
                    "\(store): error: no saved position for account \(Value.quote(scopeOptions.account)), timeline \(Value.quote(scopeOptions.timelineName))"
                )
            }
            return (snapshot, start, read.including(digests: start.readElsewhere))
        }
        let position = self.position ?? ""
        let data = try FileInput.read(position)
        do {
            return (try SnapshotCoding.read(data), nil, nil)
        } catch {
            throw CommandFailure(.invalidInput, "\(position):\(error.location == nil ? " " : "")\(error.description)")
        }
    }
}

extension TimelineFormat: ExpressibleByArgument {}
