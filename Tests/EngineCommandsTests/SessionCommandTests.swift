import Foundation
import Testing
import TimelineEngineJSONText
import TimelineEngineRestoration
import TimelineEngineTestSupport

@Suite("engine compare, replay and simulate", .ownThread, .timeLimit(.minutes(30)))
struct SessionCommandTests {
    static let config = "config/SocialFusionTimelineConfiguration.plist"
    /// What compare runs by default: the configured pipeline, each single restoration strategy,
    /// the baseline.
    static let defaultPipelines = 2 + BuiltInStrategies.registry.types.filter { $0.kind.rawValue == "restoration" && !$0.isComposition }.count

    @Test("the README's main job compares the pipelines on the bundled sessions")
    func compareBundledSessions() async throws {
        let result = try await EngineProcess.run(["compare", "--config", Self.config, "--sessions", "sessions/"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let lines = result.stdout.components(separatedBy: "\n")
        #expect(lines[0] == "Compared 90 sessions: 604 restore points, \(Self.defaultPipelines) pipelines.")
        #expect(lines[2].hasPrefix("pipeline           points  exact  within1  no answer  |idx err|  skipped  re-read  px p50  px p90  Brier"))
        #expect(lines[3].hasPrefix("configured            604  0.997    0.997          0       0.02       12        0     0.0     0.0  0.002"))
        #expect(result.stdout.contains("Tag relaunch-hard (8 restore points):"))
        // A single stage that answers nothing where the saved post is gone is scored there too,
        // as a miss: it cannot beat the configured pipeline by answering less.
        let alone = try await EngineProcess.run(["compare", "--config", Self.config, "--sessions", "sessions/", "--strategy", "ExactMatch"])
        let row = alone.stdout.components(separatedBy: "\n").first { $0.hasPrefix("ExactMatch ") }
        #expect(row?.hasPrefix("ExactMatch     604  0.858    0.858         86       0.00        0        0") == true, "\(row ?? alone.stdout)")
        #expect(
            result.stdout.contains(
                "\nSync:\npipeline           switches  switch exact  synced  back jumps  prompts  phantom  diverged  missed  writes  converge p50 s  converge p90 s  unconverged\n"
            ))
        #expect(
            result.stdout.contains(
                """

                Reaching posts the cache lacked:
                pipeline           reaches  reached  exact  within1  requests p50  requests p90  requests mean  KB mean  misses  checks
                configured              12    0.833  1.000    1.000           2.0           2.0           2.00     29.7       0      30

                """))
    }

    @Test("a session that cannot be read is left out, the rest still count, and the exit code is 1")
    func badSessions() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = try String(contentsOf: Fixtures.repositoryURL("sessions/session-0001.jsonl"), encoding: .utf8)
        var lines = good.components(separatedBy: "\n")
        lines.insert(#"{"type":"scroll","at":"2000-01-01T00:00:00Z","offset":1}"#, at: 3)
        try lines.joined(separator: "\n").write(to: directory.appendingPathComponent("a.jsonl"), atomically: true, encoding: .utf8)
        try #"{"type":"session","version":4}"#.write(to: directory.appendingPathComponent("b.jsonl"), atomically: true, encoding: .utf8)
        let result = try await EngineProcess.run(["compare", "--config", Self.config, "--sessions", directory.path, "--format", "csv", "--jobs", "2"])
        #expect(result.status == 1)
        #expect(
            result.stderr == """
                \(directory.path)/a.jsonl:4: warning: "at" goes backwards: 2000-01-01T00:00:00Z is before 2022-12-07T15:09:59Z; the event is skipped
                \(directory.path)/b.jsonl:1: error: unsupported session format version 4; this engine reads versions 1, 2 and 3; the session cannot be read

                """)
        #expect(result.stdout.hasPrefix("pipeline,spec,tag,restorePoints"))
    }

    @Test("shards merged give the single run's report")
    func shardsAndMerge() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var parts: [String] = []
        for shard in ["1/2", "2/2"] {
            let path = directory.appendingPathComponent("part\(parts.count).json").path
            let result = try await EngineProcess.run([
                "compare", "--config", Self.config, "--sessions", "sessions", "--strategy", "ExactMatch > Fallback",
                "--shard", shard, "--format", "json", "-o", path,
            ])
            #expect(result.status == 0)
            parts.append(path)
        }
        let merged = try await EngineProcess.run(["compare", "--merge"] + parts + ["--format", "csv"])
        let single = try await EngineProcess.run([
            "compare", "--config", Self.config, "--sessions", "sessions", "--strategy", "ExactMatch > Fallback",
            "--format", "csv",
        ])
        #expect(merged.status == 0)
        func dropLatency(_ csv: String) -> [String] {
            csv.components(separatedBy: "\r\n").map { $0.components(separatedBy: ",").prefix(12).joined(separator: ",") }
        }
        #expect(dropLatency(merged.stdout) == dropLatency(single.stdout))
        let html = try await EngineProcess.run(["compare", "--merge"] + parts + ["--format", "html"])
        #expect(html.stdout.contains("<p>Compared 90 sessions, shards 1/2, 2/2: 604 restore points, 3 pipelines.</p>"))
    }

    @Test("--reach replays the sessions with caches once per strategy, and refuses what is not one reach strategy")
    func reach() async throws {
        let result = try await EngineProcess.run([
            "compare", "--config", Self.config, "--sessions", "sessions/devices-caches",
            "--strategy", "ExactMatch > Fallback", "--reach", "PostWindow", "--reach", "CacheOnly",
        ])
        #expect(result.status == 0)
        #expect(
            result.stdout.contains(
                """
                Reaching posts the cache lacked:
                pipeline                            reaches  reached  exact  within1  requests p50  requests p90  requests mean  KB mean  misses  checks
                configured · PostWindow                  12    0.833  1.000    1.000           2.0           2.0           2.00     29.7       0      30
                ExactMatch > Fallback · PostWindow       12    0.833  1.000    1.000           2.0           2.0           2.00     29.7       0      30
                baseline · PostWindow                    12    0.833  1.000    1.000           2.0           2.0           2.00     29.7       0      30
                configured · CacheOnly                   12    0.000  0.000    0.000           0.0           0.0           0.00      0.0      12       0

                """))
        for (option, message) in [
            ("Nope", "error: unknown reach strategy \"Nope\". Registered: CacheOnly, OnePage, PostWindow, TopPages\n"),
            ("OnePage > TopPages", "error: --reach takes one reach strategy, such as TopPages(MaxPages: 10), found OnePage > TopPages\n"),
            ("PostWindow(MaxRequests: 1)", "error: PostWindow: MaxRequests: 1 is less than the minimum 2 (allowed: ≥ 2 and ≤ 100)\n"),
        ] {
            let refused = try await EngineProcess.run([
                "compare", "--config", Self.config, "--sessions", "sessions/devices-caches", "--reach", option,
            ])
            #expect(refused.status == 2)
            #expect(refused.stderr == message)
        }
    }

    @Test("usage errors exit 2 with a clear message")
    func usage() async throws {
        let noSessions = try await EngineProcess.run(["compare", "--config", Self.config])
        #expect(noSessions.status == 2)
        #expect(noSessions.stderr.contains("Error: missing --sessions PATH..."))
        let badShard = try await EngineProcess.run(["compare", "--config", Self.config, "--sessions", "sessions", "--shard", "3/2"])
        #expect(badShard.status == 2)
        #expect(badShard.stderr.contains("Error: --shard must be K/N with 1 ≤ K ≤ N, e.g. 1/4"))
        let missing = try await EngineProcess.run(["compare", "--config", Self.config, "--sessions", "no-such-dir"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "no-such-dir: error: no such file or directory\n")
        let badSpec = try await EngineProcess.run(["compare", "--config", Self.config, "--sessions", "sessions", "--strategy", "ExactMach"])
        #expect(badSpec.status == 2)
        #expect(
            badSpec.stderr
                == "error: unknown strategy \"ExactMach\"; did you mean \"ExactMatch\"? Registered: \(RestoreCommandTests.registeredStages)\n")
    }

    @Test("replay shows each restore point step by step")
    func replay() async throws {
        let result = try await EngineProcess.run(["replay", "sessions/session-0001.jsonl", "--config", Self.config])
        #expect(result.status == 0)
        let text = result.stdout
        #expect(
            text.hasPrefix(
                """
                session sim-2026-1: simulated-393x852, algorithmic home timeline, viewport 393 pt × 852 pt
                pipeline: ExactMatch > ContentSimilarity(Threshold: 0.8) > NeighborAnchor > TemporalProximity > ContentSimilarity > Fallback(Mode: NearestContent) | ViewportAnchor

                restore point 1 · line
                """))
        #expect(text.contains("  input (live anchor): post "))
        #expect(text.contains("    ExactMatch: post "))
        #expect(text.contains("  metrics: exact yes, within1 yes, indexError 0, pixelError 0 pt, latency "))
        #expect(text.hasSuffix("\n\n6 restore points, 6 scored: exact 6, within1 6\n"))
    }

    @Test("replay --explain shows each merge: the heads, the winner and the way it won, and why each other head was offered or not")
    func replayExplain() async throws {
        let result = try await EngineProcess.run([
            "replay", "Tests/Fixtures/independent-divergences/divergences-0001.jsonl", "--config", Self.config, "--explain",
        ])
        #expect(result.status == 0)
        // The reader's devices diverged: the laptop read on from its place, the phone read a
        // stretch of its own that stops short of it.
        #expect(
            result.stdout.contains(
                """
                  merge on phone, merge policy CausalFurthest:
                    laptop#30: post 894512983384129536, visit 130.5 s and 33 posts, saved 2017-08-15T11:29:47.134Z — the winner (concurrent; furthest)
                    phone#18: post 897429670278385664, visit 34.6 s and 14 posts, saved 2017-08-15T11:58:10.038Z
                    phone#18: offered beside the winner: the reading diverged
                    asks the reader: laptop#30 or phone#18

                """))
        // A switch: the laptop's write saw the phone's.
        #expect(
            result.stdout.contains(
                """
                    laptop#67: post 893498883090907137, visit 104.2 s and 19 posts, saved 2017-08-15T13:06:53.468Z — the winner (one live head: it saw the others)
                    phone#64: post 894528885701971970, visit 212.2 s and 40 posts, saved 2017-08-15T12:31:19.202Z
                    no divergence: one live head, which saw every other
                    restores silently

                """))
    }

    @Test("simulate writes the same sessions for the same seed")
    func simulate() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await EngineProcess.run([
            "simulate", "--posts", "Tests/Fixtures/posts/tweets-rtweet.jsonl", "--sessions", "2", "--seed", "2026",
            "-o", directory.path,
        ])
        #expect(result.status == 0)
        #expect(result.stderr.hasPrefix("wrote 2 sessions with "))
        for name in ["session-0001.jsonl", "session-0002.jsonl"] {
            #expect(try Data(contentsOf: directory.appendingPathComponent(name)) == Data(contentsOf: Fixtures.repositoryURL("sessions/\(name)")))
        }
        let devices = directory.appendingPathComponent("devices")
        let onDevices = try await EngineProcess.run([
            "simulate", "--posts", "Tests/Fixtures/posts/tweets-rtweet.jsonl", "--sessions", "2", "--seed", "2026",
            "--devices", "--feed", "chronological", "-o", devices.path,
        ])
        #expect(onDevices.status == 0)
        #expect(
            onDevices.stderr == """
                wrote 2 sessions with 16 restore points (deleted-at-switch 2, device-switch 5, scroll-back 1, scroll-back-by-hand 1, \
                stale-device 5, three-devices 1, two-devices 1) to \(devices.path)

                """)
        #expect(
            try Data(contentsOf: devices.appendingPathComponent("session-0002.jsonl"))
                == Data(contentsOf: Fixtures.repositoryURL("sessions/devices/session-0002.jsonl")))
        let tooSmall = try await EngineProcess.run([
            "simulate", "--posts", "Tests/Fixtures/restore/timeline.jsonl", "--sessions", "1", "--seed", "1",
            "-o", directory.path,
        ])
        #expect(tooSmall.status == 1)
        #expect(tooSmall.stderr == "Tests/Fixtures/restore/timeline.jsonl: error: the corpus has 30 posts; simulation needs at least 60\n")
    }

    @Test("simulate --cursors writes how a Bluesky server's cursors work; algorithmic feeds' are opaque; it needs --api bluesky")
    func simulateCursors() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = ["simulate", "--posts", "Tests/Fixtures/posts/tweets-rtweet.jsonl", "--sessions", "4", "--seed", "7", "--devices", "--caches"]
        let written = try await EngineProcess.run(base + ["--api", "bluesky", "--cursors", "issued-only", "-o", directory.path, "--quiet"])
        #expect(written.status == 0, "\(written.stderr)")
        var seen = Set<String>()
        for number in 1...4 {
            let text = try String(contentsOf: directory.appendingPathComponent("session-000\(number).jsonl"), encoding: .utf8)
            let header = String(text.prefix { $0 != "\n" })
            seen.insert(header.contains(#""feed":"algorithmic""#) ? "algorithmic" : "chronological")
            #expect(header.contains(header.contains(#""feed":"algorithmic""#) ? #""cursors":"opaque""# : #""cursors":"issued-only""#), "\(header)")
        }
        #expect(seen == ["algorithmic", "chronological"])
        let refused = try await EngineProcess.run(base + ["--cursors", "opaque", "-o", directory.path])
        #expect(refused.status == 2)
        #expect(refused.stderr.hasPrefix("Error: --cursors needs --api bluesky\n"))
    }
}

@Suite("engine compare with merge policies", .ownThread, .timeLimit(.minutes(30)))
struct MergePolicyCompareTests {
    @Test("--merge-policy replays the multi-device sessions under each policy: each wins its own case")
    func policies() async throws {
        // The hand-written sessions, one case each.
        let handWritten = (1...4).map { "sessions/devices/devices-000\($0).jsonl" }
        let result = try await EngineProcess.run(
            ["compare", "--config", "config/SocialFusionTimelineConfiguration.plist", "--sessions"] + handWritten + [
                "--merge-policy", "LastWriterWins", "--merge-policy", "FurthestRead(Direction: Newer)",
                "--merge-policy", "FurthestRead(Direction: Older)", "--merge-policy", "CausalFurthest",
                "--strategy", "ExactMatch > Fallback", "--format", "csv",
            ])
        #expect(result.status == 0)
        let rows = result.stdout.components(separatedBy: "\r\n").map { $0.components(separatedBy: ",") }
        func exact(_ pipeline: String, _ tag: String) -> String? {
            rows.first { $0.count > 4 && $0[0] == pipeline && $0[2] == tag }?[4]
        }
        // A stale device that glances on from its old place and saves later: the latest write
        // drags the reader back, and so does FurthestRead in the wrong direction; CausalFurthest
        // sets the glance aside.
        #expect(exact("configured · LastWriterWins", "stale-device") == "0.0")
        #expect(exact("configured · FurthestRead(Direction: Newer)", "stale-device") == "1.0")
        #expect(exact("configured · FurthestRead(Direction: Older)", "stale-device") == "0.0")
        #expect(exact("configured · CausalFurthest", "stale-device") == "1.0")
        // A switch with the delivery on time: every policy lands.
        for policy in ["LastWriterWins", "FurthestRead(Direction: Newer)", "FurthestRead(Direction: Older)", "CausalFurthest"] {
            #expect(exact("configured · \(policy)", "device-switch") == "1.0", "\(policy)")
        }
        let unknown = try await EngineProcess.run([
            "compare", "--config", "config/SocialFusionTimelineConfiguration.plist", "--sessions", "sessions/devices",
            "--merge-policy", "FurthestReed",
        ])
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr
                == "error: unknown merge policy \"FurthestReed\"; did you mean \"FurthestRead\"? Registered: CausalFurthest, FurthestRead, FurthestWithPrompt, LastWriterWins, MarkerArrival, NewerForwardOnly, Overwrite, WallClock\n"
        )
    }

    @Test("the default merge policy holds the bar on every simulated multi-device case, reading down or catching up, and beats or ties the others")
    func qualityBar() async throws {
        let policies = ["CausalFurthest", "LastWriterWins", "FurthestRead"]
        for directory in ["sessions/devices", "sessions/devices-catching-up", "sessions/devices-diverged"] {
            let result = try await EngineProcess.run(
                [
                    "compare", "--config", "config/SocialFusionTimelineConfiguration.plist", "--sessions", directory,
                    "--format", "json",
                ] + policies.flatMap { ["--merge-policy", $0] })
            #expect(result.status == 0)
            let report = try JSONReader().read(Data(result.stdout.utf8))
            var exact: [String: [String: Double]] = [:]
            for pipeline in report["pipelines"]?.arrayValue ?? [] {
                guard let name = pipeline["name"]?.stringValue, name.hasPrefix("configured · ") else { continue }
                for tag in pipeline["tags"]?.arrayValue ?? [] {
                    exact[String(name.dropFirst("configured · ".count)), default: [:]][tag["tag"]?.stringValue ?? ""] = tag["exact"]?.numberValue
                }
            }
            let causal = try #require(exact["CausalFurthest"])
            // The hand-written sync-dropped and sync-late lose their delivery: no policy can land.
            for (tag, value) in causal where !["sync-dropped", "sync-late"].contains(tag) {
                #expect(value >= 0.95, "\(directory): \(tag) \(value)")
            }
            for other in policies.dropFirst() {
                for (tag, value) in causal { #expect(value >= (exact[other]?[tag] ?? 0), "\(directory): \(tag): CausalFurthest below \(other)") }
            }
        }
    }
}
