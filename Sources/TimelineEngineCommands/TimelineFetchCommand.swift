import ArgumentParser
import Foundation
import TimelineEngineKit

/// `engine timeline fetch --source FILE|URL --store PATH`: cache-first loading.
struct TimelineFetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load a timeline cache-first: show the cached one, refresh it from its source, merge, store, restore.",
        discussion: """
            The source is a timeline file (any format engine restore reads) or an http(s) URL: a \
            Mastodon home timeline (GET /api/v1/timelines/home) or a Bluesky \
            app.bsky.feed.getTimeline. The access token is read from the environment variable \
            named by --token-env, never from the command line. Requests follow the \
            configuration's Network section (retry policy and timeout); the cached posts follow \
            TimelineCache. When the refresh fails, the cached timeline stands and the status says \
            offline (the source could not be reached) or stale (it answered with an error or \
            something that is not a timeline).

            Exit codes: 0 refreshed, 1 the refresh failed (the cache stands) or invalid input, \
            2 unreadable file or bad usage.

            Examples:
              engine timeline fetch --source timeline.jsonl --store state.sqlite
              export ENGINE_ACCESS_TOKEN=…
              engine timeline fetch --store state.sqlite \\
                --source 'https://mastodon.social/api/v1/timelines/home?limit=40'
              engine timeline fetch --store s.sqlite --token-env BSKY_TOKEN \\
                --source 'https://bsky.social/xrpc/app.bsky.feed.getTimeline?limit=50'
            """
    )

    @Option(name: .long, help: "A timeline file, or the http(s) URL of a Mastodon or Bluesky timeline.")
    var source: String

    @OptionGroup var storeOptions: StoreOptions

    @OptionGroup var scopeOptions: StoreScopeOptions

    @Option(name: .long, help: "The configuration file (default: the built-in defaults).")
    var config: String?

    @Option(name: .long, help: "The API of an http(s) source when its path does not tell: mastodon or bluesky.")
    var api: TimelineSource.API?

    @Option(name: .customLong("token-env"), help: "The environment variable holding the access token.")
    var tokenVariable: String = TimelineSource.defaultTokenVariable

    @Option(name: .long, help: "Output format: text or json.")
    var format: TextOrJSON = .text

    @OptionGroup var lenientOption: LenientOption

    @OptionGroup var logging: LoggingOptions

    func run() async throws {
        let configured = try config.map { try ConfigurationInput.load($0, lenient: lenientOption.lenient) }
        let configuration = configured?.configuration ?? .defaults
        let parsed: TimelineSource
        do {
            parsed = try TimelineSource.parse(source, api: api, tokenVariable: tokenVariable)
        } catch {
            throw CommandFailure(.usage, error.description)
        }
        // A file that cannot be read is the user's mistake (exit 2), not a source that answered
        // with something unusable (stale, exit 1).
        if case .file(let path, _) = parsed, let problem = FileData.problem(atPath: path) {
            throw CommandFailure(.unreadable, "\(path): error: \(FileData.ReadError(reason: problem))")
        }
        let scope = scopeOptions.scope
        let engine: TimelineEngine
        do {
            engine = try await TimelineEngine(
                configuration: configuration, registry: configured?.registry ?? BuiltInStrategies.registry,
                store: try await storeOptions.open(create: true), scope: scope)
        } catch let error as PipelineError {
            throw CommandFailure(.invalidInput, "error: \(error.description)")
        }
        let progress = FetchProgress(source: parsed.description)
        let textOutput = format == .text
        if case .file = parsed {} else { progress.start() }
        defer { progress.finish() }
        let report: CacheFirstLoader.Report
        do {
            report = try await engine.loadTimeline(
                from: parsed,
                onCached: { cached in
                    // Step 1: the cached timeline, at once.
                    if textOutput { Console.out(Self.cacheLine(cached, now: Date())) }
                }, progress: progress.report)
        } catch let error as PipelineError {
            throw CommandFailure(.invalidInput, "error: \(error.description)")
        }
        progress.finish()
        switch format {
        case .text: print(report, source: parsed, policyName: configuration.network.policy.name)
        case .json: try Console.json(report.jsonValue(source: parsed))
        }
        if let error = report.error {
            if format == .json { Console.error(error.description) }
            throw EngineExit.invalid
        }
    }

    static func cacheLine(_ cached: TimelineStore.CachedTimeline?, now: Date) -> String {
        guard let cached else { return "cache: empty" }
        let refreshed =
            cached.refreshedAt.map { "refreshed \(Timestamp.format($0)) (\(Age.describe(now.timeIntervalSince($0))) ago)" }
            ?? "never refreshed"
        return "cache: \(cached.posts.count) post\(cached.posts.count == 1 ? "" : "s"), \(refreshed)"
    }

    func print(_ report: CacheFirstLoader.Report, source: TimelineSource, policyName: String) {
        let kind =
            switch source {
            case .file: "file"
            case .mastodon: "Mastodon"
            case .bluesky: "Bluesky"
            }
        Console.out("source: \(source) (\(kind)\(report.attempts.isEmpty ? "" : ", \(policyName)"))")
        for attempt in report.attempts {
            var line = "  attempt \(attempt.number) at \(Self.seconds(attempt.startedAt)): "
            if let failure = attempt.failure {
                line += "\(failure) after \(Self.seconds(attempt.duration))"
                if let delay = attempt.retryDelay { line += "; retry in \(Self.seconds(delay))" }
            } else {
                line += "ok in \(Self.seconds(attempt.duration))"
            }
            Console.out(line)
        }
        if let merge = report.merge {
            Console.out(
                "changes: \(merge.added.count) new, \(merge.updated.count) edited, \(merge.removed.count) removed, "
                    + "\(merge.retained.count) kept beyond the answer, \(merge.unchanged) unchanged")
            let evicted = report.evicted.isEmpty ? "" : " (\(report.evicted.count) evicted by the cache policy)"
            Console.out("stored: \(report.timeline.posts.count) post\(report.timeline.posts.count == 1 ? "" : "s")\(evicted)")
        }
        let last = report.lastRefreshed.map { "last refreshed \(Timestamp.format($0))" } ?? "never refreshed"
        switch report.status {
        case .fresh: Console.out("status: fresh, \(last)")
        case .offline, .stale:
            let standing = report.timeline.posts.isEmpty ? "nothing is cached" : "the cached timeline stands"
            Console.out("status: \(report.status.rawValue), \(standing); \(last)")
        }
        if let start = report.start, start.source == .synced, let snapshot = start.snapshot {
            Console.out("start: post \(snapshot.postId), synced from \(start.device ?? "another device")")
        }
        if let reach = report.reach { Self.printReach(reach) }
        if let gaps = GapText.line(report.gaps) { Console.out(gaps) }
        if let restoration = report.restoration {
            Console.out(
                "position: post \(restoration.postId) at index \(restoration.index), offset \(RestoreCommand.points(restoration.contentOffset)) "
                    + "(\(restoration.strategy), confidence \(String(format: "%.2f", restoration.confidence)))")
        } else if report.position == nil {
            Console.out("position: none saved")
        }
        if let error = report.error { Console.error(error.description) }
    }

    static func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }

    /// A size in bytes, for a reader.
    static func bytes(_ count: Int) -> String {
        count < 1024 ? "\(count) B" : String(format: "%.1f KB", Double(count) / 1024)
    }

    /// What reaching the restore's post did, in a line, and each request.
    static func printReach(_ reach: CacheFirstLoader.ReachReport) {
        let made = "\(reach.requestCount) request\(reach.requestCount == 1 ? "" : "s")"
        let added = "\(reach.added) post\(reach.added == 1 ? "" : "s") added, \(Self.bytes(reach.bytes))"
        let line: String =
            switch reach.outcome {
            case .reached where reach.checked:
                "post \(reach.postId) is cached from an earlier load; \(reach.strategy) checked that the source still has it (\(made))"
            case .gone where reach.checked:
                "post \(reach.postId) is cached from an earlier load, but the source no longer has it (\(reach.strategy), \(made)); it leaves the cache, and the restore goes below where it was"
            case .reached: "post \(reach.postId) was not cached; \(reach.strategy) reached it in \(made) (\(added))"
            case .gone:
                "post \(reach.postId) was not cached and the source no longer has it (\(reach.strategy), \(made), \(added)); restoring below where it was"
            case .unreached:
                "post \(reach.postId) could not be reached: \(reach.strategy) stopped after \(made) (\(added)); restoring on what is loaded"
            case .notTried where reach.strategy == "none": "post \(reach.postId) is not cached and the refresh failed; restoring on what is cached"
            case .notTried: "post \(reach.postId) is not cached; \(reach.strategy) made no request; restoring on what is cached"
            case .failed(let message): "post \(reach.postId) could not be fetched: \(message); restoring on what is cached (\(made), \(added))"
            }
        Console.out("reach: " + line)
        for (number, request) in reach.requests.enumerated() {
            let answer: String
            if let failure = request.failure {
                answer = "failed: \(failure)"
            } else if case .post = request.request {
                answer = request.posts > 0 ? "found" : "not found"
            } else {
                answer =
                    "\(request.posts) post\(request.posts == 1 ? "" : "s")"
                    + (request.cut > 0 ? " (\(request.cut) beyond those asked for left out)" : "")
            }
            let retries = request.attempts > 1 ? " after \(request.attempts) attempts" : ""
            Console.out("  request \(number + 1): \(request.request): \(answer)\(retries)")
        }
    }
}

extension TimelineSource.API: ExpressibleByArgument {}
