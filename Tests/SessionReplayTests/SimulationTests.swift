import Foundation
import Testing
import TimelineEngineConfiguration
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineJSONSchema
import TimelineEngineJSONText
import TimelineEnginePositionTracking
import TimelineEngineSessionFormat
import TimelineEngineSessionReplay
import TimelineEngineSessionSimulation
import TimelineEngineTestSupport

@Suite(.ownThread, .timeLimit(.minutes(30))) struct SimulationTests {
    /// The fixture's posts; a missing or broken fixture stops the tests instead of simulating
    /// from nothing.
    static let corpus: [Post] = {
        do {
            return try TimelineFormat.read(try Data(contentsOf: Fixtures.url("posts/tweets-rtweet.jsonl")), format: .jsonl).posts
        } catch {
            fatalError("Tests/Fixtures/posts/tweets-rtweet.jsonl cannot be read: \(error)")
        }
    }()

    func simulate(seed: UInt64, sessions: Int = 6, feed: SimulationOptions.FeedMode = .mixed) -> [String] {
        let simulator = SessionSimulator(corpus: Self.corpus, options: SimulationOptions(sessions: sessions, seed: seed, feed: feed))
        return (1...sessions).map { SessionWriter.text(of: simulator.session(number: $0)) }
    }

    @Test func isDeterministicForASeed() {
        #expect(simulate(seed: 11) == simulate(seed: 11))
        #expect(simulate(seed: 11) != simulate(seed: 12))
    }

    @Test func everyLineMatchesTheSchemaAndReadsWithoutWarnings() throws {
        let schema = try JSONSchema(json: try Data(contentsOf: Fixtures.repositoryURL("schemas/recorded-session.schema.json")))
        for text in simulate(seed: 3, sessions: 3) {
            let session = try RecordedSession.read(Data(text.utf8), name: "sim")
            #expect(session.warnings.isEmpty)
            for line in text.split(separator: "\n") {
                let result = schema.validate(try JSONReader().read(String(line)))
                #expect(result.isValid, "\(result.errors.first.map { "\($0.instancePath): \($0.message)" } ?? "")")
            }
        }
    }

    @Test func coversEveryCaseAndTheTruthIsInTheTimeline() throws {
        var tags: Set<String> = []
        for text in simulate(seed: 5, sessions: 20) {
            var reader = try SessionReader(data: Data(text.utf8), name: "sim")
            var replayer = try SessionReplayer(header: reader.header, settings: ReplaySettings())
            while let event = reader.next() {
                guard let point = replayer.apply(event) else { continue }
                tags.insert(point.tag)
                #expect(point.index.index(of: point.expected.postId) != nil)
                if point.tag == "present" || point.tag == "refresh" {
                    // With nothing lost, the live anchor is the truth.
                    #expect(point.input?.postId == point.expected.postId)
                    #expect(point.input?.viewportY == point.expected.viewportY)
                }
                if point.tag == "redrafted" { #expect(point.expected.postId.contains("-redraft")) }
            }
        }
        #expect(tags == ["present", "refresh", "algorithmic", "deleted", "redrafted", "relaunch-soft", "relaunch-hard", "paused"])
    }

    @Test func theBundledSessionsAreWhatTheDocumentedCommandWrites() throws {
        let simulator = SessionSimulator(corpus: Self.corpus, options: SimulationOptions(sessions: 12, seed: 2026, feed: .mixed))
        #expect(Self.corpus.count == 2369)
        // Every bundled session, byte for byte: any change in the simulator's output shows.
        let sessions = try FileManager.default.contentsOfDirectory(atPath: Fixtures.repositoryURL("sessions").path).filter { $0.hasSuffix(".jsonl") }
        #expect(sessions.count == 12)
        for number in 1...12 {
            let bundled = try String(contentsOf: Fixtures.repositoryURL("sessions/session-\(String(format: "%04d", number)).jsonl"), encoding: .utf8)
            #expect(SessionWriter.text(of: simulator.session(number: number)) == bundled)
        }
    }

    func simulateOnDevices(seed: UInt64, sessions: Int, feed: SimulationOptions.FeedMode = .chronological) -> [String] {
        let simulator = SessionSimulator(corpus: Self.corpus, options: SimulationOptions(sessions: sessions, seed: seed, feed: feed, devices: true))
        return (1...sessions).map { SessionWriter.text(of: simulator.session(number: $0)) }
    }

    @Test("sessions on two devices: deterministic, valid, every device case, the truth in the timeline")
    func onDevices() throws {
        #expect(simulateOnDevices(seed: 4, sessions: 2) == simulateOnDevices(seed: 4, sessions: 2))
        let schema = try JSONSchema(json: try Data(contentsOf: Fixtures.repositoryURL("schemas/recorded-session.schema.json")))
        var tags: Set<String> = []
        var skewed = 0
        var explicitScrolls = 0
        for text in simulateOnDevices(seed: 9, sessions: 12, feed: .mixed) {
            for line in text.split(separator: "\n") {
                let result = schema.validate(try JSONReader().read(String(line)))
                #expect(result.isValid, "\(result.errors.first.map { "\($0.instancePath): \($0.message)" } ?? "")")
                if line.contains(#""explicit":true"#) { explicitScrolls += 1 }
            }
            var reader = try SessionReader(data: Data(text.utf8), name: "sim")
            #expect(reader.header.version == SessionHeader.multiDeviceVersion)
            if reader.header.clockSkew == ["laptop": 3600] { skewed += 1 }
            var settings = ReplaySettings()
            settings.mergePolicy = ComponentSpec(name: "CausalFurthest")
            var replayer = try SessionReplayer(header: reader.header, settings: settings)
            while let event = reader.next() {
                guard let point = replayer.apply(event) else { continue }
                tags.insert(point.tag)
                #expect(point.index.index(of: point.expected.postId) != nil)
                if ["device-switch", "scroll-back", "scroll-back-by-hand", "three-devices"].contains(point.tag) {
                    // A switch with the deliveries on time: the latest write is the truth.
                    #expect(point.input?.postId == point.expected.postId)
                    #expect(point.afterSwitch)
                }
            }
            #expect(reader.takeWarnings().isEmpty)
            #expect(replayer.devices == ["phone", "laptop"] || replayer.devices == ["phone", "laptop", "tablet"])
        }
        #expect(
            tags == [
                "device-switch", "two-devices", "offline-day", "clock-fast", "stale-device", "scroll-back", "scroll-back-by-hand",
                "deleted-at-switch", "three-devices",
            ])
        #expect(skewed > 0)
        #expect(explicitScrolls > 0)
    }

    @Test func theBundledDeviceSessionsAreWhatTheDocumentedCommandWrites() throws {
        let simulator = SessionSimulator(
            corpus: Self.corpus, options: SimulationOptions(sessions: 20, seed: 2026, feed: .chronological, devices: true))
        for number in 1...20 {
            let bundled = try String(
                contentsOf: Fixtures.repositoryURL("sessions/devices/session-\(String(format: "%04d", number)).jsonl"), encoding: .utf8)
            #expect(SessionWriter.text(of: simulator.session(number: number)) == bundled)
        }
        let catchingUp = SessionSimulator(
            corpus: Self.corpus,
            options: SimulationOptions(
                sessions: 12, seed: 2027, feed: .chronological, devices: true,
                reading: .up))
        for number in 1...12 {
            let bundled = try String(
                contentsOf: Fixtures.repositoryURL("sessions/devices-catching-up/session-\(String(format: "%04d", number)).jsonl"),
                encoding: .utf8)
            #expect(SessionWriter.text(of: catchingUp.session(number: number)) == bundled)
        }
        let diverging = SessionSimulator(
            corpus: Self.corpus,
            options: SimulationOptions(sessions: 30, seed: 2029, feed: .chronological, devices: true, divergences: true))
        for number in 1...30 {
            let bundled = try String(
                contentsOf: Fixtures.repositoryURL("sessions/devices-diverged/session-\(String(format: "%04d", number)).jsonl"),
                encoding: .utf8)
            #expect(SessionWriter.text(of: diverging.session(number: number)) == bundled)
        }
    }

    @Test("--divergences: two devices read parts of their own, each point marked; CausalFurthest asks there and almost nowhere else")
    func divergences() throws {
        let simulator = SessionSimulator(
            corpus: Self.corpus, options: SimulationOptions(sessions: 40, seed: 31, feed: .chronological, devices: true, divergences: true))
        var settings = ReplaySettings()
        settings.mergePolicy = ComponentSpec(name: "CausalFurthest")
        var (diverged, asked, plainSwitches, phantoms) = (0, 0, 0, 0)
        for number in 1...40 {
            let text = SessionWriter.text(of: simulator.session(number: number))
            var reader = try SessionReader(data: Data(text.utf8), name: "sim")
            var replayer = try SessionReplayer(header: reader.header, settings: settings)
            while let event = reader.next() {
                guard let point = replayer.apply(event) else { continue }
                // Only the diverged case is marked, and it is marked every time.
                #expect(point.expected.diverged == (point.tag == "diverged"))
                #expect(point.index.index(of: point.expected.postId) != nil)
                if point.expected.diverged {
                    diverged += 1
                    if point.offer.count > 1 {
                        asked += 1
                        // The reader's answer is one of the positions offered.
                        #expect(point.offer.contains { $0.postId == point.expected.postId }, "\(point.line)")
                    }
                } else if point.afterSwitch {
                    plainSwitches += 1
                    if point.offer.count > 1 { phantoms += 1 }
                }
            }
            #expect(reader.takeWarnings().isEmpty)
        }
        #expect(diverged >= 8)
        #expect(Double(asked) >= 0.95 * Double(diverged), "asked at \(asked) of \(diverged) divergences")
        #expect(Double(phantoms) * 50 <= Double(plainSwitches), "\(phantoms) phantom prompts in \(plainSwitches) switches")
        // Without the option, no session has the case.
        let plain = SessionSimulator(corpus: Self.corpus, options: SimulationOptions(sessions: 4, seed: 31, feed: .chronological, devices: true))
        for number in 1...4 { #expect(!SessionWriter.text(of: plain.session(number: number)).contains("diverged")) }
    }
}
