import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineJSONText
import TimelineEngineReachModel
import TimelineEngineStore
import TimelineEngineTestSupport

@testable import TimelineEngineCommands

/// `engine timeline fetch` and `show`, end to end: the built tool against the loopback server.
@Suite("engine timeline fetch and show", .timeLimit(.minutes(10)))
struct TimelineCommandTests {
    static let path = "/api/v1/timelines/home"

    static func answer(_ name: String) async throws -> LoopbackHTTPServer.Answer {
        .json(try Data(contentsOf: Fixtures.url("api/\(name)")))
    }

    /// Replaces times that vary from run to run: seconds, timestamps and ages.
    static func normalized(_ text: String) -> String {
        var result = text
        for (pattern, replacement) in [
            (#"\d+\.\d\d s"#, "T s"), (#"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"#, "TIME"),
            (#"\(\d+ (s|min|h|d) ago\)"#, "(AGE ago)"), (#"127\.0\.0\.1:\d+"#, "HOST"),
        ] {
            result = result.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return result
    }

    /// Post `n` of the laptop case: id "n", written n minutes after 2026-11-24T00:00:00Z.
    static func post(_ n: Int) -> Post {
        Post(
            id: "\(n)", createdAt: Date(timeIntervalSince1970: 1_795_478_400 + Double(60 * n)), author: "author\(n % 9)",
            text: "post number \(n) of the feed")
    }

    /// A Mastodon-shaped server and the laptop's store, which cached the head page yesterday when
    /// the server had 600 posts; since then 400 more came. Returns the server and the laptop's
    /// fetch command (with the sync configuration when `config`).
    static func laptopYesterday(_ setup: SyncCommandTests.Setup, config: Bool) async throws -> (FakeTimelineServer, [String]) {
        let server = try FakeTimelineServer(mastodon: true, posts: (1...600).reversed().map(Self.post))
        let fetch =
            ["timeline", "fetch", "--source", server.timelineURL.absoluteString, "--store", setup.store("laptop")]
            + (config ? ["--config", setup.config] : []) + ["--account", "me", "--timeline-name", "home", "--token-env", "TEST_TOKEN"]
        #expect(try await EngineProcess.run(fetch, environment: ["TEST_TOKEN": "t"]).status == 0)
        server.change { $0.insert((601...1000).reversed().map(Self.post)) }
        return (server, fetch)
    }

    @Test("the laptop case: a position synced from the phone in posts the laptop never loaded is reached, shown with its gaps, and restored")
    func laptopCase() async throws {
        let setup = try SyncCommandTests.Setup(policy: #""CausalFurthest""#)
        defer { setup.remove() }
        let (server, fetch) = try await Self.laptopYesterday(setup, config: true)
        // The phone read down to post 800 and synced.
        _ = try await EngineProcess.run([
            "position", "save", "--store", setup.store("phone"), "--config", setup.config, "--device", "phone",
            "--account", "me", "--timeline-name", "home", "--post", "800", "--created-at", "2026-11-24T13:20:00Z",
        ])
        try await setup.sync("phone")
        #expect(
            try await setup.sync("laptop").stdout == "me / home: now post 800\nsynced laptop with Directory: heard from phone; 1 moved, 0 sent\n")
        let before = server.requests.count
        let result = try await EngineProcess.run(fetch, environment: ["TEST_TOKEN": "t"])
        #expect(result.status == 0)
        #expect(
            Self.normalized(result.stdout) == """
                cache: 40 posts, refreshed TIME (AGE ago)
                source: http://HOST/api/v1/timelines/home?limit=40 (Mastodon, NoRetry)
                  attempt 1 at T s: ok in T s
                changes: 40 new, 0 edited, 0 removed, 40 kept beyond the answer, 0 unchanged
                stored: 121 posts
                status: fresh, last refreshed TIME
                start: post 800, synced from phone
                reach: post 800 was not cached; PostWindow reached it in 2 requests (41 posts added, 5.8 KB)
                  request 1: post 800: found
                  request 2: page of 40 below 800: 40 posts
                gaps: 2 (961 | 800, 760 | 600)
                position: post 800 at index 40, offset 3680 pt (ExactMatch, confidence 1.00)

                """)
        #expect(
            Array(server.requests[before...]) == [
                "/api/v1/timelines/home?limit=40", "/api/v1/statuses/800", "/api/v1/timelines/home?max_id=800&limit=40",
            ])

        let show = try await EngineProcess.run([
            "timeline", "show", "--store", setup.store("laptop"), "--account", "me", "--timeline-name", "home",
            "--limit", "42",
        ])
        #expect(
            Self.normalized(show.stdout).components(separatedBy: "\n").suffix(7).joined(separator: "\n") == """
                   40   961  TIME  @author7  post number 961 of the feed
                       ⋮ gap: posts between 961 and 800 were never loaded
                   41   800  TIME  @author8  post number 800 of the feed
                   42   799  TIME  @author7  post number 799 of the feed
                  … 79 more (--limit 0 shows all)
                gaps: 2 (961 | 800, 760 | 600)

                """)

        // engine restore --store starts where a restore starts: the phone's synced position.
        let json = try await EngineProcess.run([
            "timeline", "show", "--store", setup.store("laptop"), "--account", "me", "--timeline-name", "home",
            "--format", "json",
        ])
        let file = URL(fileURLWithPath: setup.store("laptop") + ".timeline.json")
        try Data(json.stdout.utf8).write(to: file)
        let restore = try await EngineProcess.run([
            "restore", "--config", setup.config, "--timeline", file.path, "--store", setup.store("laptop"),
            "--account", "me", "--timeline-name", "home",
        ])
        #expect(restore.status == 0)
        #expect(
            restore.stdout.components(separatedBy: "\n").prefix(2) == [
                "start: post 800, synced from phone",
                "post 800 at index 40, content offset 3680 pt, viewportY 0 pt",
            ])
        // The laptop has read none of the 40 posts above: all are new to it ("N new above you").
        #expect(restore.stdout.components(separatedBy: "\n").dropFirst(3).first == "40 new above you")
        let restoreJSON = try await EngineProcess.run([
            "restore", "--config", setup.config, "--timeline", file.path, "--store", setup.store("laptop"),
            "--account", "me", "--timeline-name", "home", "--format", "json",
        ])
        #expect(try JSONReader().read(Data(restoreJSON.stdout.utf8))["unreadAbove"]?.numberValue == 40)
    }

    @Test("a fetch killed with SIGKILL while it reaches a post loses nothing: the store is sound and holds what the refresh stored")
    func killedWhileReaching() async throws {
        let setup = try SyncCommandTests.Setup(policy: #""CausalFurthest""#)
        defer { setup.remove() }
        let (server, fetch) = try await Self.laptopYesterday(setup, config: false)
        let laptop = try await TimelineStore(path: setup.store("laptop"))
        try await laptop.positions.saveSnapshot(
            PositionSnapshot(postId: "800", postCreatedAt: Self.post(800).createdAt), scope: StoreScope(account: "me", timeline: "home"))
        // The lookup of the post never answers: the fetch is killed while it waits.
        server.inject("post", [LoopbackHTTPServer.Answer(body: Data("{}".utf8), delay: 30)])
        let child = try BackgroundProcess(EngineProcess.executable, fetch, in: Fixtures.repository, environment: ["TEST_TOKEN": "t"])
        try await Deadline.wait(seconds: 60, "the lookup of post 800") { server.requests.contains("/api/v1/statuses/800") }
        _ = try await child.stop(signal: SIGKILL)
        let reopened = try await TimelineStore(path: setup.store("laptop"))
        #expect(try await reopened.integrityProblems() == [])
        let cached = try #require(try await reopened.timelines.storedTimeline(scope: StoreScope(account: "me", timeline: "home")))
        let expected: [String] = (961...1000).reversed().map { "\($0)" } + (561...600).reversed().map { "\($0)" }
        #expect(cached.posts.map(\.id) == expected)
        #expect(cached.gaps == [TimelineGap(above: "961", below: "600")])
    }

    @Test("times no date can print, in a damaged store, are shown as the nearest printable ones: show and fetch go on")
    func unprintableTimes() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("damaged.sqlite").path
        do {
            let store = try await TimelineStore(path: path)
            try await store.timelines.saveTimeline(
                [
                    Post(id: "a", createdAt: Date(timeIntervalSince1970: 1e300), author: "x", text: "one"),
                    Post(id: "b", createdAt: Date(timeIntervalSinceReferenceDate: -.infinity), author: "x", text: "two"),
                ],
                scope: StoreScope(), refreshedAt: Date(timeIntervalSince1970: -1e300))
        }
        let shown = try await EngineProcess.run(["timeline", "show", "--store", path])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(
            shown.stdout == """
                default / home: 2 posts, refreshed 0001-01-01T00:00:00Z (\(shown.stdout.components(separatedBy: "(")[1].components(separatedBy: ")")[0]))
                  1  a  9999-12-31T23:59:59Z  @x  one
                  2  b  0001-01-01T00:00:00Z  @x  two

                """)
        let file = directory.appendingPathComponent("t.jsonl")
        try """
        {"id":"a","createdAt":"2026-08-01T13:55:05.955Z","author":"x","text":"one"}
        {"id":"b","createdAt":"2026-08-01T13:55:04.955Z","author":"x","text":"two"}

        """.write(to: file, atomically: true, encoding: .utf8)
        let fetched = try await EngineProcess.run(["timeline", "fetch", "--source", file.path, "--store", path])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        #expect(fetched.stdout.hasPrefix("cache: 2 posts, refreshed 0001-01-01T00:00:00Z ("))
    }

    @Test("ids, authors and texts with escape sequences and line breaks reach the terminal escaped, forging no line")
    func hostileText() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("hostile.jsonl")
        try #"""
        {"id":"a\u001b[2J","createdAt":"2026-08-01T13:55:05Z","author":"x\u001b]0;owned\u0007","text":"one\u001b[31mred"}
        {"id":"b\nsaved position: forged","createdAt":"2026-08-01T13:55:04Z","author":"y","text":"two\u202eowt"}

        """#.write(to: file, atomically: true, encoding: .utf8)
        let store = directory.appendingPathComponent("s.sqlite").path
        let fetched = try await EngineProcess.run(["timeline", "fetch", "--source", file.path, "--store", store])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let shown = try await EngineProcess.run(["timeline", "show", "--store", store])
        #expect(shown.status == 0)
        #expect(!shown.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E })
        // Columns are padded to the widest escaped id; collapse the padding to compare.
        let lines = shown.stdout.split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        }
        #expect(lines.count == 3)
        #expect(lines[1].hasPrefix("1 a\\u{1b}[2J 2026-08-01T13:55:05Z @x\\u{1b}]0;owned\\u{7} one\\u{1b}[31mred"))
        #expect(lines[2].hasPrefix("2 b\\u{a}saved position: forged"))
        #expect(lines[2].hasSuffix("two\\u{202e}owt"))
    }

    @Test("fetch loads cache-first from a Mastodon server and reports what changed; show prints the cache")
    func mastodon() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.script(Self.path, [try await Self.answer("mastodon-home.json"), try await Self.answer("mastodon-home-refreshed.json")])
        let store = directory.appendingPathComponent("state.sqlite").path
        let arguments = [
            "timeline", "fetch", "--source", server.baseURL + Self.path + "?limit=40", "--store", store,
            "--account", "reader@mastodon.example", "--token-env", "TEST_MASTODON_TOKEN",
        ]
        let first = try await EngineProcess.run(arguments, environment: ["TEST_MASTODON_TOKEN": "abc123"])
        #expect(first.status == 0)
        #expect(
            Self.normalized(first.stdout) == """
                cache: empty
                source: http://HOST/api/v1/timelines/home?limit=40 (Mastodon, NoRetry)
                  attempt 1 at T s: ok in T s
                changes: 40 new, 0 edited, 0 removed, 0 kept beyond the answer, 0 unchanged
                stored: 40 posts
                status: fresh, last refreshed TIME
                position: none saved

                """)
        #expect(server.received.first?.headers["authorization"] == "Bearer abc123")

        let second = try await EngineProcess.run(arguments, environment: ["TEST_MASTODON_TOKEN": "abc123"])
        #expect(second.status == 0)
        #expect(
            Self.normalized(second.stdout) == """
                cache: 40 posts, refreshed TIME (AGE ago)
                source: http://HOST/api/v1/timelines/home?limit=40 (Mastodon, NoRetry)
                  attempt 1 at T s: ok in T s
                changes: 2 new, 1 edited, 1 removed, 1 kept beyond the answer, 37 unchanged
                stored: 41 posts
                status: fresh, last refreshed TIME

                """ + "position: none saved\n")

        let show = try await EngineProcess.run(["timeline", "show", "--store", store, "--account", "reader@mastodon.example", "--limit", "3"])
        #expect(show.status == 0)
        #expect(
            Self.normalized(show.stdout) == """
                reader@mastodon.example / home: 41 posts, refreshed TIME (AGE ago)
                   1  1600603975363006470  TIME  @ina_deutschmann  RT @matthewhirschey: 100% of research labs have LAB MEETING…
                   2  1600603323178143744  TIME  @Alfons_Valencia  RT @LluisMontoliu: Comentario de este artículo en Nature po…
                   3  1600602374875275267  TIME  @AErcoreca  ⚖️ El Tribunal Supremo declara nulo el despido de un trabaja…
                  … 38 more (--limit 0 shows all)

                """)

        // The JSON is the engine's timeline format, which restore reads.
        let json = try await EngineProcess.run(["timeline", "show", "--store", store, "--account", "reader@mastodon.example", "--format", "json"])
        let file = directory.appendingPathComponent("timeline.json")
        try Data(json.stdout.utf8).write(to: file)
        let position = directory.appendingPathComponent("position.json")
        try Data(#"{"postId": "1600602374875275267", "viewportY": -12}"#.utf8).write(to: position)
        let restore = try await EngineProcess.run([
            "restore", "--config", "config/SocialFusionTimelineConfiguration.plist", "--timeline", file.path,
            "--position", position.path,
        ])
        #expect(restore.status == 0)
        #expect(restore.stdout.hasPrefix("post 1600602374875275267 at index 2,"))
    }

    @Test("a failed refresh exits 1, leaves the cache as it was, and says stale or offline")
    func failure() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        server.script(
            Self.path,
            [
                try await Self.answer("mastodon-home.json"),
                .json(Data(#"{"error":"This action is not allowed"}"#.utf8), status: 500),
            ])
        let store = directory.appendingPathComponent("state.sqlite").path
        let arguments = ["timeline", "fetch", "--source", server.baseURL + Self.path, "--store", store]
        #expect(try await EngineProcess.run(arguments).status == 0)
        let before = try await EngineProcess.run(["timeline", "show", "--store", store, "--format", "json"]).stdout
        let failed = try await EngineProcess.run(arguments)
        #expect(failed.status == 1)
        #expect(
            Self.normalized(failed.stdout) == """
                cache: 40 posts, refreshed TIME (AGE ago)
                source: http://HOST/api/v1/timelines/home (Mastodon, NoRetry)
                  attempt 1 at T s: HTTP 500 after T s
                status: stale, the cached timeline stands; last refreshed TIME
                position: none saved

                """)
        #expect(Self.normalized(failed.stderr) == "http://HOST/api/v1/timelines/home: error: HTTP 500: This action is not allowed\n")
        #expect(try await EngineProcess.run(["timeline", "show", "--store", store, "--format", "json"]).stdout == before)

        server.stop()
        let offline = try await EngineProcess.run(arguments)
        #expect(offline.status == 1)
        #expect(offline.stdout.contains("status: offline, the cached timeline stands; last refreshed "))
    }

    @Test("ExponentialBackoff from the configuration: retries are printed, with the wait on stderr")
    func backoff() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let limited = LoopbackHTTPServer.Answer(
            status: 429, headers: [("Content-Type", "application/json"), ("Retry-After", "1")],
            body: Data(#"{"error":"Too many requests"}"#.utf8))
        server.script("/xrpc/app.bsky.feed.getTimeline", [limited, try await Self.answer("bluesky-timeline.json")])
        let config = directory.appendingPathComponent("config.json")
        try Data(#"{"Network": {"Policy": {"Strategy": "ExponentialBackoff", "MaxAttempts": 3, "BaseDelay": 0.1}}}"#.utf8).write(to: config)
        let result = try await EngineProcess.run([
            "timeline", "fetch", "--config", config.path, "--store", directory.appendingPathComponent("s.sqlite").path,
            "--source", server.baseURL + "/xrpc/app.bsky.feed.getTimeline?limit=40",
        ])
        #expect(result.status == 0)
        #expect(
            Self.normalized(result.stdout) == """
                cache: empty
                source: http://HOST/xrpc/app.bsky.feed.getTimeline?limit=40 (Bluesky, ExponentialBackoff)
                  attempt 1 at T s: HTTP 429 (retry after 1 s) after T s; retry in T s
                  attempt 2 at T s: ok in T s
                changes: 40 new, 0 edited, 0 removed, 0 kept beyond the answer, 0 unchanged
                stored: 40 posts
                status: fresh, last refreshed TIME
                position: none saved

                """)
        #expect(result.stderr.contains("attempt 1 failed: HTTP 429: Too many requests (the server asks to wait 1 s); retrying in 1.00 s\n"))
        let arrivals = server.received.map(\.arrivedAt)
        #expect(arrivals.count == 2)
        #expect(arrivals[1] - arrivals[0] >= 1)
    }

    @Test("the progress indicator: nothing for a second, then a line every 3 s, or one line redrawn on a terminal")
    func progressLines() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let at = { (seconds: Double) in start.addingTimeInterval(seconds) }
        var lines = FetchProgressLines(source: "http://h/x", interactive: false, start: start)
        #expect(lines.line(at: at(0.75), state: "waiting for the answer") == nil)
        #expect(lines.line(at: at(1.0), state: "waiting for the answer") == "fetching http://h/x: waiting for the answer, 1 s\n")
        #expect(lines.line(at: at(2.5), state: "waiting for the answer") == nil)
        #expect(lines.line(at: at(4.25), state: "attempt 2 of 4") == "fetching http://h/x: attempt 2 of 4, 4 s\n")
        var terminal = FetchProgressLines(source: "http://h/x", interactive: true, start: start)
        #expect(terminal.line(at: at(0.5), state: "s") == nil)
        #expect(terminal.line(at: at(1.25), state: "s") == "\rfetching http://h/x: s, 1.2 s \u{1B}[K")
        #expect(terminal.line(at: at(1.35), state: "s") == "\rfetching http://h/x: s, 1.4 s \u{1B}[K")
    }

    @Test("a long fetch still succeeds, and whatever progress it printed is the waiting line")
    func progress() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        var slow = try await Self.answer("mastodon-home.json")
        slow.delay = 1.6
        server.script(Self.path, [slow])
        let result = try await EngineProcess.run([
            "timeline", "fetch", "--source", server.baseURL + Self.path,
            "--store", directory.appendingPathComponent("s.sqlite").path,
        ])
        #expect(result.status == 0)
        // Whether the line came before the answer depends on the machine's load; what it says does not.
        #expect(["", "fetching http://HOST/api/v1/timelines/home: waiting for the answer, 1 s\n"].contains(Self.normalized(result.stderr)))
    }

    @Test("usage errors: an URL whose API cannot be told, --api on a file, a missing store")
    func usage() async throws {
        let unknown = try await EngineProcess.run(["timeline", "fetch", "--source", "https://example.com/feed", "--store", "/tmp/x.sqlite"])
        #expect(unknown.status == 2)
        #expect(
            unknown.stderr
                == "https://example.com/feed: error: cannot tell the API from the URL; give --api mastodon or --api bluesky (Mastodon: /api/v1/timelines/home, Bluesky: /xrpc/app.bsky.feed.getTimeline)\n"
        )
        let apiOnFile = try await EngineProcess.run(["timeline", "fetch", "--source", "t.json", "--api", "mastodon", "--store", "/tmp/x.sqlite"])
        #expect(apiOnFile.status == 2)
        #expect(apiOnFile.stderr == "t.json: error: --api applies to http(s) URLs only\n")
        let missing = try await EngineProcess.run(["timeline", "show", "--store", "/nonexistent/state.sqlite"])
        #expect(missing.status == 2)
        #expect(missing.stderr == "/nonexistent/state.sqlite: error: no such store\n")
    }
}
