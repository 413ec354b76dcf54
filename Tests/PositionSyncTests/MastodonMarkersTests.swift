import Foundation
import Testing
import TimelineEngineCausalFurthest
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineFurthestRead
import TimelineEngineHTTPExchange
import TimelineEngineJSONText
import TimelineEngineLastWriterWins
import TimelineEngineNIOHTTP
import TimelineEnginePositionSync
import TimelineEngineReachModel
import TimelineEngineRestoration
import TimelineEngineStore
import TimelineEngineStrategyKit
import TimelineEngineSyncModel
import TimelineEngineTestSupport
import TimelineEngineValueTree

@testable import TimelineEngineMastodonMarkers

/// The MastodonMarkers transport against a loopback stub of `/api/v1/markers` that enforces the
/// API's rules: a bearer token, a `version` that every update moves on, and HTTP 409 when the
/// marker changed while an update was being made (optimistic locking, as Mastodon's). Updates are
/// stamped at the time the tests' devices save at.
@Suite("Mastodon markers transport", .serialized, .timeLimit(.minutes(10)))
struct MastodonMarkersTests {
    static let scope = StoreScope(account: "default", timeline: "home")
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    static let token = "mastodon-token"

    /// Mastodon-like ids: later posts have larger ids.
    static func id(_ n: Int) -> String { String(109_000_000_000_000_000 + n) }

    // @unchecked: every property is read and written under `lock`, by the server's handlers and the test.
    final class MarkerStub: @unchecked Sendable {
        let lock = NSLock()
        var marker: (id: String, version: Int, updatedAt: Date)?
        /// How long an update takes between reading the version and writing: a window for races.
        var updateDelay: Double = 0
        /// Competing updates applied just before the next POSTs, each making that POST a 409.
        var competitors: [String] = []
        var posts = 0
        var conflicts = 0
        /// When set, the server's clock: updates are stamped with it, and answers carry it as `Date`.
        var clock: Date?
        /// When set, updates answer with this body instead of the marker (a server that stores nothing).
        var postAnswer: Data?
        /// False: updates keep the version (a server whose version never moves).
        var movesVersion = true

        var updateTime: Date { lock.withLock { clock } ?? MastodonMarkersTests.start }

        func answer(_ body: Data, status: Int = 200) -> LoopbackHTTPServer.Answer {
            var headers = [("Content-Type", "application/json; charset=utf-8")]
            if let clock = lock.withLock({ clock }) {
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "GMT")
                formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
                headers.append(("Date", formatter.string(from: clock)))
            }
            return LoopbackHTTPServer.Answer(status: status, headers: headers, body: body)
        }

        func markerJSON() -> Data {
            guard let marker = lock.withLock({ self.marker }) else { return Data("{}".utf8) }
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return Data(
                #"{"home":{"last_read_id":"\#(marker.id)","version":\#(marker.version),"updated_at":"\#(formatter.string(from: marker.updatedAt))"}}"#
                    .utf8)
        }

        func handle(_ request: LoopbackHTTPServer.Request, _ body: Data) -> LoopbackHTTPServer.Answer {
            guard request.headers["authorization"] == "Bearer \(MastodonMarkersTests.token)" else {
                return .json(Data(#"{"error":"The access token is invalid"}"#.utf8), status: 401)
            }
            switch request.method {
            case "GET":
                guard request.path.contains("timeline%5B%5D=home") || request.path.contains("timeline[]=home") else {
                    return answer(Data("{}".utf8))
                }
                return answer(markerJSON())
            case "POST":
                guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                    let home = object["home"] as? [String: Any], let id = home["last_read_id"] as? String
                else {
                    return .json(Data(#"{"error":"Validation failed"}"#.utf8), status: 422)
                }
                let (version, competitor) = lock.withLock { () -> (Int, String?) in
                    posts += 1
                    return (marker?.version ?? 0, competitors.isEmpty ? nil : competitors.removeFirst())
                }
                let time = updateTime
                if let competitor {
                    lock.withLock {
                        marker = (competitor, version + 1, time)
                        conflicts += 1
                    }
                    return .json(Data(#"{"error":"Conflict during update, please try again"}"#.utf8), status: 409)
                }
                if updateDelay > 0 { usleep(useconds_t(updateDelay * 1_000_000)) }  // off-pool: the loopback server's connection thread
                let stale = lock.withLock { () -> Bool in
                    guard (marker?.version ?? 0) == version else {
                        conflicts += 1
                        return true
                    }
                    if postAnswer == nil { marker = (id, movesVersion ? version + 1 : version, time) }
                    return false
                }
                if stale { return .json(Data(#"{"error":"Conflict during update, please try again"}"#.utf8), status: 409) }
                if let postAnswer = lock.withLock({ self.postAnswer }) { return answer(postAnswer) }
                return answer(markerJSON())
            default:
                return .json(Data(#"{"error":"Not allowed"}"#.utf8), status: 405)
            }
        }
    }

    static func transport(
        _ server: LoopbackHTTPServer, token: String = token, maxConflicts: Int = 3,
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> MastodonMarkersTransport {
        MastodonMarkersTransport(
            base: URL(string: server.baseURL)!, maxConflicts: maxConflicts,
            environment: { ["ENGINE_ACCESS_TOKEN": token] }, exchange: NIOHTTPExchange(), now: now)
    }

    static func round(
        _ store: TimelineStore, _ device: String, _ transport: MastodonMarkersTransport,
        policy: any MergePolicy = LastWriterWinsPolicy()
    ) -> SyncRound {
        SyncRound(store: store, components: .with(policy: policy, transport: transport), device: device, gracePeriod: 30 * 86_400)
    }

    static func setup() throws -> (URL, LoopbackHTTPServer, MarkerStub) {
        let directory = try Fixtures.temporaryDirectory()
        let server = try LoopbackHTTPServer()
        let stub = MarkerStub()
        server.handle("/api/v1/markers") { request, body in stub.handle(request, body) }
        return (directory, server, stub)
    }

    /// Saves `post`, created when its (time-ordered) id says, as the app would.
    static func save(_ store: TimelineStore, _ post: String, device: String, explicit: Bool = false, at date: Date) async throws {
        let created = Date(timeIntervalSince1970: Double(UInt64(post)! >> 16) / 1000)
        try await store.sync.savePosition(
            PositionSnapshot(postId: post, postCreatedAt: created), scope: scope, device: device, explicit: explicit, at: date)
    }

    @Test("the marker moves forward, and another device reads it as a position")
    func forward() async throws {
        let (directory, server, stub) = try Self.setup()
        defer {
            try? FileManager.default.removeItem(at: directory)
            server.stop()
        }
        let phone = try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        try await Self.save(phone, Self.id(10), device: "phone", at: Self.start)
        _ = try await Self.round(phone, "phone", Self.transport(server)).run(at: Self.start)
        #expect(stub.marker?.id == Self.id(10))
        #expect(stub.marker?.version == 1)
        let laptop = try await TimelineStore(path: directory.appendingPathComponent("laptop.sqlite").path)
        let report = try await Self.round(laptop, "laptop", Self.transport(server)).run(at: Self.start)
        #expect(report.devices == ["mastodon"])
        let register = try await laptop.sync.register(of: RegisterKey(account: "default", timeline: "home"))
        #expect(LastWriterWinsPolicy().value(of: register)?.snapshot?.postId == Self.id(10))
        // The marker is the head of the pseudo-device mastodon, numbered by its time and version.
        #expect(register.head(of: "mastodon")?.sequence == UInt64(Self.start.timeIntervalSince1970 * 1000) + 1 + 1)
        // Nothing new: no update is sent.
        _ = try await Self.round(laptop, "laptop", Self.transport(server)).run(at: Self.start)
        #expect(stub.posts == 1)
    }

    @Test("the marker never moves backwards, unless the reader scrolled back on purpose after it was set")
    func neverBackwards() async throws {
        let (directory, server, stub) = try Self.setup()
        defer {
            try? FileManager.default.removeItem(at: directory)
            server.stop()
        }
        stub.marker = (Self.id(50), 7, Self.start)
        let stale = try await TimelineStore(path: directory.appendingPathComponent("stale.sqlite").path)
        // A stale client saves an older post, later than the marker: the marker stays.
        try await Self.save(stale, Self.id(20), device: "stale", at: Self.start.addingTimeInterval(60))
        _ = try await Self.round(stale, "stale", Self.transport(server)).run(at: Self.start.addingTimeInterval(61))
        #expect(stub.marker?.id == Self.id(50))
        #expect(stub.posts == 0)
        // The reader scrolls back on purpose: an explicit save after the marker was set.
        try await Self.save(stale, Self.id(30), device: "stale", explicit: true, at: Self.start.addingTimeInterval(120))
        _ = try await Self.round(stale, "stale", Self.transport(server)).run(at: Self.start.addingTimeInterval(121))
        #expect(stub.marker?.id == Self.id(30))
        #expect(stub.marker?.version == 8)
    }

    @Test("a move back on one device is not undone by the other device's position further along: both end on it, and so does the marker")
    func moveBackAgrees() async throws {
        let (directory, server, stub) = try Self.setup()
        defer {
            try? FileManager.default.removeItem(at: directory)
            server.stop()
        }
        // One clock for the devices and the server, read by the transport when it sends.
        func at(_ seconds: Double) -> Date {
            let date = Self.start.addingTimeInterval(seconds)
            stub.lock.withLock { stub.clock = date }
            return date
        }
        let transport = Self.transport(server, now: { stub.updateTime })
        let policy = CausalFurthestPolicy()
        let phone = try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        let laptop = try await TimelineStore(path: directory.appendingPathComponent("laptop.sqlite").path)
        let key = RegisterKey(account: "default", timeline: "home")
        // The phone reads to 50; the laptop hears it and reads on to 60; the phone hears that.
        try await Self.save(phone, Self.id(50), device: "phone", at: at(0))
        _ = try await Self.round(phone, "phone", transport, policy: policy).run(at: at(1))
        _ = try await Self.round(laptop, "laptop", transport, policy: policy).run(at: at(60))
        try await Self.save(laptop, Self.id(60), device: "laptop", at: at(120))
        _ = try await Self.round(laptop, "laptop", transport, policy: policy).run(at: at(121))
        _ = try await Self.round(phone, "phone", transport, policy: policy).run(at: at(180))
        #expect(policy.value(of: try await phone.sync.register(of: key))?.snapshot?.postId == Self.id(60))
        // On the phone the reader jumps back to 30 on purpose: the marker goes back.
        try await Self.save(phone, Self.id(30), device: "phone", explicit: true, at: at(240))
        _ = try await Self.round(phone, "phone", transport, policy: policy).run(at: at(241))
        #expect(stub.marker?.id == Self.id(30))
        // The laptop, whose own position is further along, hears the later marker: the move back wins
        // there, and its round leaves the marker where it is.
        _ = try await Self.round(laptop, "laptop", transport, policy: policy).run(at: at(300))
        #expect(policy.value(of: try await laptop.sync.register(of: key))?.snapshot?.postId == Self.id(30))
        #expect(stub.marker?.id == Self.id(30))
        _ = try await Self.round(phone, "phone", transport, policy: policy).run(at: at(360))
        #expect(policy.value(of: try await phone.sync.register(of: key))?.snapshot?.postId == Self.id(30))
        #expect(stub.marker?.id == Self.id(30))
    }

    @Test("an update answered 200 without the marker stored nothing: an error, not a sent change")
    func storedNothing() async throws {
        let (directory, server, stub) = try Self.setup()
        defer {
            try? FileManager.default.removeItem(at: directory)
            server.stop()
        }
        stub.postAnswer = Data("{}".utf8)
        let phone = try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        try await Self.save(phone, Self.id(10), device: "phone", at: Self.start)
        await #expect {
            _ = try await Self.round(phone, "phone", Self.transport(server)).run(at: Self.start)
        } throws: { error in
            (error as? SyncRound.Failure)?.error
                == SyncTransportError(
                    .failed,
                    "\(server.baseURL)/api/v1/markers: HTTP 200 but the answer does not show the home marker at \(Self.id(10)), so nothing was stored (answer: {})"
                )
        }
        #expect(try await phone.sync.pendingWrites().count == 1)
    }

    @Test("a server whose marker version never moves: each update is still heard, by its time")
    func versionNeverMoves() async throws {
        let (directory, server, stub) = try Self.setup()
        defer {
            try? FileManager.default.removeItem(at: directory)
            server.stop()
        }
        stub.movesVersion = false
        let phone = try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        let laptop = try await TimelineStore(path: directory.appendingPathComponent("laptop.sqlite").path)
        let key = RegisterKey(account: "default", timeline: "home")
        for (number, seconds) in [(10, 0.0), (20, 60), (30, 120)] {
            stub.lock.withLock { stub.clock = Self.start.addingTimeInterval(seconds) }
            try await Self.save(phone, Self.id(number), device: "phone", at: Self.start.addingTimeInterval(seconds))
            _ = try await Self.round(phone, "phone", Self.transport(server)).run(at: Self.start.addingTimeInterval(seconds))
            _ = try await Self.round(laptop, "laptop", Self.transport(server)).run(at: Self.start.addingTimeInterval(seconds + 1))
            #expect(stub.marker?.version == 0)
            #expect(try await laptop.sync.register(of: key).head(of: "mastodon")?.snapshot?.postId == Self.id(number))
        }
    }

    @Test("a post's time is read from a Mastodon or Takahē id where it gives a plausible one, and from no other")
    func postTimes() {
        let latest = Date(timeIntervalSince1970: 1_800_000_000)
        // Mastodon: milliseconds since 1970 above the low 16 bits.
        #expect(
            MastodonMarkersTransport.postTime(fromId: "117020580489281910", notAfter: latest)
                == Date(timeIntervalSince1970: Double(UInt64(117_020_580_489_281_910) >> 16) / 1000))
        // Takahē: milliseconds since 2022-01-01 07:00 UTC above the low 22 bits; read as
        // Mastodon's it is in 2283.
        let takahe = UInt64(1_700_000_000_000 - 1_641_020_400_000) << 22
        #expect(MastodonMarkersTransport.postTime(fromId: String(takahe), notAfter: latest) == Date(timeIntervalSince1970: 1_700_000_000))
        for other in ["12", "abc", "99999999999999999999999", "1"] {
            #expect(MastodonMarkersTransport.postTime(fromId: other, notAfter: latest) == nil, "\(other)")
        }
    }

    @Test("a real Takahē server's ids give each recorded status's created_at, within 5 ms")
    func takaheIdTimes() throws {
        // Its posts were written through the API while it was recorded: the id's time is the
        // post's, made a few milliseconds apart. With the epoch read as 2022-01-01 00:00 UTC
        // every time came out 7 hours early.
        var statuses = 0
        for exchange in try RecordedServer.exchanges(server: "takahe", ["home"]) where exchange.body.hasPrefix("[") {
            for status in try JSONReader().read(Data(exchange.body.utf8)).arrayValue ?? [] {
                let id = try #require(status["id"]?.stringValue)
                let created = try #require(status["created_at"]?.stringValue.flatMap(Timestamp.parse))
                let time = try #require(MastodonMarkersTransport.postTime(fromId: id, notAfter: Date(timeIntervalSince1970: 1_900_000_000)))
                #expect(abs(time.timeIntervalSince(created)) <= 0.005, "\(id): \(Timestamp.format(time)) for \(Timestamp.format(created))")
                statuses += 1
            }
        }
        #expect(statuses == 490)
    }

    @Test(
        "real servers' recorded marker answers: mastodon.social's read as a head with its time, the server's clock and the post's time; an update checked against the answer"
    )
    func recordedAnswers() async throws {
        let social = try RecordedServer(
            try RecordedServer.exchanges(server: "mastodon-4.6.4", ["test_entity_marker"]),
            recordedOrigin: "https://mastodon.social")
        defer { social.stop() }
        // The recording's own Date: the device's clock read the server's.
        let answered = try #require(HTTPDate.parse("Sat, 11 Apr 2026 23:14:47 GMT"))
        let transport = Self.transport(social.server, now: { answered })
        let pulled = try await transport.pull(device: "phone")
        let record = try #require(pulled.records.first)
        #expect(record.snapshot?.postId == "112354531929585923")
        let updated = try #require(MastodonMarkersTransport.parseDate("2024-04-29T12:50:18.048Z"))
        #expect(record.stamp.time.milliseconds == UInt64(updated.timeIntervalSince1970 * 1000))
        #expect(record.sequence == UInt64(updated.timeIntervalSince1970 * 1000) + 321 + 1)
        #expect(record.clocks["phone"] == -1_000)
        #expect(record.progress?.createdAt == Double(UInt64(112_354_531_929_585_923) >> 16) / 1000)
        // A local Mastodon 4.6.4's answer to an update shows the marker it stored.
        let local = try RecordedServer(
            try RecordedServer.exchanges(server: "mastodon-4.6.4", ["test_markers"]), recordedOrigin: "http://localhost:3000")
        defer { local.stop() }
        let writer = Self.transport(local.server)
        #expect(try await writer.write("117020574841135347"))
        await #expect(throws: SyncTransportError.self) { _ = try await writer.write("117020574841135348") }
    }

    @Test("the transport says what it cannot carry, word for word; transports that carry heads whole say nothing")
    func limitations() throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        #expect(
            Self.transport(server).limitations
                == "MastodonMarkers carries a post id alone: not the place within the post (the reader lands at its top), not the visit (a glance counts as reading), not which device moved it, not the posts read (the other devices count them as new); an explicit move back holds only once pushed; and it cannot be sealed end to end, since Mastodon's server must read the post id"
        )
        #expect(try BuiltInStrategies.registry.transport(ComponentSpec(name: "None")).limitations == nil)
    }

    @Test("a server without markers (Takahē's HTML 404) is an error that says so, and a round sends nothing")
    func serverWithoutMarkers() async throws {
        let takahe = try RecordedServer(try RecordedServer.exchanges(server: "takahe", ["home"]), recordedOrigin: "http://127.0.0.1:8000")
        defer { takahe.stop() }
        await #expect(throws: SyncTransportError(.failed, "\(takahe.baseURL)/api/v1/markers: HTTP 404")) {
            _ = try await Self.transport(takahe.server).pull(device: "phone")
        }
    }

    @Test("an explicit move back made before the marker's last update does not take the marker back; one made after it does")
    func olderResetStays() async throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await TimelineStore(path: directory.appendingPathComponent("s.sqlite").path)
        // Another device moved the marker on to post 50 at +600 s, after the pull of a round
        // whose register holds this device's move back to post 30: the push reads the marker
        // again and must not undo the later update with the older reset.
        let marker = MastodonMarkersTransport.Marker(lastReadId: Self.id(50), version: 7, updatedAt: Self.start.addingTimeInterval(600))
        let older = try await store.sync.savePosition(
            PositionSnapshot(postId: Self.id(30)), scope: Self.scope, device: "phone", explicit: true,
            at: Self.start.addingTimeInterval(300))
        #expect(older.isReset)
        #expect(!MastodonMarkersTransport.shouldMove(marker, to: Self.id(30), by: older))
        let later = try await store.sync.savePosition(
            PositionSnapshot(postId: Self.id(31)), scope: Self.scope, device: "phone", explicit: true,
            at: Self.start.addingTimeInterval(900))
        #expect(MastodonMarkersTransport.shouldMove(marker, to: Self.id(31), by: later))
        // Forward always; the same post never.
        #expect(MastodonMarkersTransport.shouldMove(marker, to: Self.id(60), by: older))
        #expect(!MastodonMarkersTransport.shouldMove(marker, to: Self.id(50), by: later))
    }

    @Test("built through the registry from its parameters; a URL that is not http(s) with a host is refused with the reason")
    func fromTheRegistry() throws {
        let node = StrategyNode(
            name: "MastodonMarkers",
            parameters: [
                "URL": Value.Member(value: .string("https://mastodon.example")),
                "PollInterval": Value.Member(value: .integer(120)),
            ])
        guard let built = try BuiltInStrategies.registry.build(node, kind: .transport).as((any SyncTransport).self) else {
            Issue.record("not a transport")
            return
        }
        #expect(built is MastodonMarkersTransport)
        let bad = StrategyNode(name: "MastodonMarkers", parameters: ["URL": Value.Member(value: .string("mastodon.example"))])
        #expect(throws: PipelineError("MastodonMarkers: URL must be an http or https URL with a host, found mastodon.example")) {
            _ = try BuiltInStrategies.registry.build(bad, kind: .transport)
        }
    }

    @Test("answers that are not markers, and a missing token, are errors with their reason")
    func badAnswers() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.stop() }
        let transport = Self.transport(server)
        let endpoint = server.baseURL + "/api/v1/markers"
        for (answer, message) in [
            (#"[1, 2]"#, "\(endpoint): the answer is not a JSON object of markers"),
            (#"{"home": {"version": 3}}"#, "\(endpoint): the home marker has no last_read_id string"),
        ] {
            server.script("/api/v1/markers", [.json(Data(answer.utf8))])
            await #expect(throws: SyncTransportError(.failed, message)) { _ = try await transport.pull(device: "phone") }
        }
        server.script("/api/v1/markers", [.json(Data(#"{}"#.utf8))])
        #expect(try await transport.pull(device: "phone").records.isEmpty)
        let tokenless = MastodonMarkersTransport(base: URL(string: server.baseURL)!, environment: { [:] }, exchange: NIOHTTPExchange())
        await #expect(throws: SyncTransportError(.failed, "no Mastodon access token: set the environment variable ENGINE_ACCESS_TOKEN")) {
            _ = try await tokenless.pull(device: "phone")
        }
    }

    @Test("the change stream polls the marker and yields what it reads")
    func changeStream() async throws {
        let (directory, server, stub) = try Self.setup()
        defer {
            try? FileManager.default.removeItem(at: directory)
            server.stop()
        }
        stub.marker = (Self.id(40), 3, Self.start)
        let watch = ChangeWatch(device: "phone", sleep: { _ in try await Task.sleep(for: .milliseconds(1)) })
        let first = try await Deadline.value(within: 30, "a pull from the change stream") {
            var iterator = Self.transport(server).changes(watch).makeAsyncIterator()
            return await iterator.next()
        }
        #expect(first?.records.first?.snapshot?.postId == Self.id(40))
    }

    @Test("a 409: read again and decide again; a competitor further along is kept, one behind is overtaken")
    func conflicts() async throws {
        let (directory, server, stub) = try Self.setup()
        defer {
            try? FileManager.default.removeItem(at: directory)
            server.stop()
        }
        let phone = try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        try await Self.save(phone, Self.id(40), device: "phone", at: Self.start)
        stub.competitors = [Self.id(60)]
        _ = try await Self.round(phone, "phone", Self.transport(server)).run(at: Self.start)
        #expect(stub.marker?.id == Self.id(60))
        #expect(stub.posts == 1)
        try await Self.save(phone, Self.id(80), device: "phone", at: Self.start.addingTimeInterval(10))
        stub.competitors = [Self.id(70)]
        _ = try await Self.round(phone, "phone", Self.transport(server)).run(at: Self.start.addingTimeInterval(10))
        #expect(stub.marker?.id == Self.id(80))
        #expect(stub.posts == 3)
    }

    @Test("conflicts without end stop after MaxConflicts retries with an error; the outbox keeps the change")
    func boundedRetries() async throws {
        let (directory, server, stub) = try Self.setup()
        defer {
            try? FileManager.default.removeItem(at: directory)
            server.stop()
        }
        let phone = try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        try await Self.save(phone, Self.id(90), device: "phone", at: Self.start)
        stub.competitors = (1...10).map { Self.id($0) }
        await #expect {
            _ = try await Self.round(phone, "phone", Self.transport(server, maxConflicts: 2)).run(at: Self.start)
        } throws: { error in
            (error as? SyncRound.Failure)?.error
                == SyncTransportError(
                    .failed, "\(server.baseURL)/api/v1/markers: the marker kept changing during the update (HTTP 409 3 times)")
        }
        #expect(stub.posts == 3)
        #expect(try await phone.sync.pendingWrites().count == 1)
    }

    @Test(
        "two clients racing: overlapping updates meet a 409 and decide again; after a round each the marker is at the furthest post",
        arguments: 1...5)
    func race(_ round: Int) async throws {
        let (directory, server, stub) = try Self.setup()
        defer {
            try? FileManager.default.removeItem(at: directory)
            server.stop()
        }
        stub.updateDelay = 0.05
        let phone = try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        let laptop = try await TimelineStore(path: directory.appendingPathComponent("laptop.sqlite").path)
        let (near, far) = round % 2 == 0 ? (Self.id(100), Self.id(200)) : (Self.id(200), Self.id(100))
        // FurthestRead, the policy that matches a read marker: a device keeps what it read
        // furthest, whatever the marker went through.
        let policy = FurthestReadPolicy(direction: .newer)
        try await Self.save(phone, near, device: "phone", at: Self.start)
        try await Self.save(laptop, far, device: "laptop", at: Self.start)
        let transport = Self.transport(server)
        async let a: Void = { _ = try await Self.round(phone, "phone", transport, policy: policy).run(at: Self.start) }()
        async let b: Void = { _ = try await Self.round(laptop, "laptop", transport, policy: policy).run(at: Self.start) }()
        _ = try await (a, b)
        // Both updates ran; a 409 came when they overlapped on the server. Mastodon does not take
        // the version a client read, so a write that lands between another's read and write is
        // no conflict and can leave the nearer post: the next round of the device that is
        // further along moves the marker forward again, and it never goes further back.
        #expect([Self.id(100), Self.id(200)].contains(stub.marker?.id ?? ""))
        _ = try await Self.round(phone, "phone", transport, policy: policy).run(at: Self.start.addingTimeInterval(1))
        _ = try await Self.round(laptop, "laptop", transport, policy: policy).run(at: Self.start.addingTimeInterval(1))
        #expect(stub.marker?.id == Self.id(200))
    }

    @Test("a refused token is an error with Mastodon's message; a server that is down is offline")
    func failures() async throws {
        let (directory, server, _) = try Self.setup()
        defer { try? FileManager.default.removeItem(at: directory) }
        let phone = try await TimelineStore(path: directory.appendingPathComponent("phone.sqlite").path)
        try await Self.save(phone, Self.id(5), device: "phone", at: Self.start)
        await #expect {
            _ = try await Self.round(phone, "phone", Self.transport(server, token: "wrong")).run(at: Self.start)
        } throws: { error in
            (error as? SyncRound.Failure)?.error
                == SyncTransportError(.failed, "\(server.baseURL)/api/v1/markers: HTTP 401: The access token is invalid")
        }
        server.stop()
        await #expect {
            _ = try await Self.round(phone, "phone", Self.transport(server)).run(at: Self.start)
        } throws: { error in
            (error as? SyncRound.Failure)?.error.kind == .unreachable
        }
    }
}
