import Foundation
import PropertyBased
import Testing
import TimelineEngineConfiguration
import TimelineEngineJSONText
import TimelineEnginePositionTracking
import TimelineEnginePropertyList
import TimelineEngineRestoration
import TimelineEngineSessionFormat
import TimelineEngineSessionReplay
import TimelineEngineSessionSimulation
import TimelineEngineTestSupport
import TimelineEngineValueTree

/// Random damage to valid documents: no input may crash anything, and every rejected input
/// gets a diagnostic with a line.
@Suite("Robustness under mutation", .ownThread, .timeLimit(.minutes(30)))
struct MutationPropertyTests {
    /// The seed documents; a fixture that cannot be read fails the test instead of leaving it
    /// with nothing to mutate.
    static func plistSeeds() throws -> [Data] {
        let files = Fixtures.files(in: "plist-corpus/valid", withSuffix: ".plist")
            .filter { !$0.lastPathComponent.hasPrefix("libplist-4") && !$0.lastPathComponent.hasPrefix("libplist-3") }
        #expect(files.count >= 10, "the plist corpus is missing from Tests/Fixtures")
        return try files.map { try Data(contentsOf: $0) }
            + [try Data(contentsOf: Fixtures.repositoryURL("config/SocialFusionTimelineConfiguration.plist"))]
    }

    static func jsonSeeds() throws -> [Data] {
        [
            try Data(contentsOf: Fixtures.repositoryURL("config/SocialFusionTimelineConfiguration.json")),
            Data("{\"Restoration\": {\"Pipeline\": [{\"Strategy\": \"ExactMatch\"}], \"MinimumConfidence\": 0.5}}".utf8),
        ]
    }

    /// A mutation of a document: truncate, delete, duplicate, or overwrite a byte range.
    struct Mutation: Sendable, CustomStringConvertible {
        let seed: Int
        let kind: Int
        let position: Double
        let length: Int
        let byte: UInt8

        func apply(to data: Data) -> Data {
            var bytes = [UInt8](data)
            guard !bytes.isEmpty else { return data }
            let at = min(bytes.count - 1, Int(position * Double(bytes.count)))
            let end = min(bytes.count, at + length)
            switch kind {
            case 0: bytes.removeSubrange(at...)
            case 1: bytes.removeSubrange(at..<end)
            case 2: bytes.insert(contentsOf: bytes[at..<end], at: end)
            case 3: for index in at..<end { bytes[index] = byte }
            case 4: bytes.insert(contentsOf: Array("<".utf8) + [byte], at: at)
            default:
                // Shuffled by a generator seeded from the mutation, so that a failure replays.
                var generator = SimulationRandom(seed: UInt64(seed) &* 31 &+ UInt64(byte))
                bytes.insert(contentsOf: Array("&#x0;]]>\"{}[]:,".utf8).shuffled(using: &generator).prefix(length), at: at)
            }
            return Data(bytes)
        }

        var description: String { "seed \(seed), kind \(kind), at \(position), length \(length), byte \(byte)" }
    }

    static func mutation(_ seed: Int, _ kind: Int, _ position: Double, _ length: Int, _ byte: UInt8) -> Mutation {
        Mutation(seed: seed, kind: kind, position: position, length: length, byte: byte)
    }

    @Test("mutated plists never crash, and every rejection has a line")
    func plists() async throws {
        let plistSeeds = try Self.plistSeeds()
        await pinnedPropertyCheck(
            count: 400,
            input: zip(
                Gen.int(in: 0...1000), Gen.int(in: 0...5), Gen.double(in: 0...1),
                Gen.int(in: 1...40), Gen.uint8())
        ) { seed, kind, position, length, byte in
            let mutation = Self.mutation(seed, kind, position, length, byte)
            let data = mutation.apply(to: plistSeeds[mutation.seed % plistSeeds.count])
            do {
                let value = try PropertyListReader().read(data)
                _ = try? PropertyListWriter().write(value)
            } catch let error as PropertyListError {
                #expect(error.location != nil, "\(mutation): \(error.message)")
            } catch {
                Issue.record("unexpected error \(error)")
            }
            let loaded = ConfigurationLoader().read(data: data, fileName: "x.plist", format: .plist)
            for diagnostic in loaded.diagnostics where diagnostic.kind != .schema || diagnostic.severity == .error {
                #expect(diagnostic.location != nil || diagnostic.path != nil, "\(mutation): \(diagnostic)")
            }
        }
    }

    @Test("mutated JSON never crashes, and every rejection has a line")
    func json() async throws {
        let jsonSeeds = try Self.jsonSeeds()
        await pinnedPropertyCheck(
            count: 400,
            input: zip(
                Gen.int(in: 0...1000), Gen.int(in: 0...5), Gen.double(in: 0...1),
                Gen.int(in: 1...40), Gen.uint8())
        ) { seed, kind, position, length, byte in
            let mutation = Self.mutation(seed, kind, position, length, byte)
            let data = mutation.apply(to: jsonSeeds[mutation.seed % jsonSeeds.count])
            do {
                _ = try JSONReader().read(data)
            } catch let error as JSONSyntaxError {
                #expect(error.location.line >= 1, "\(mutation)")
            } catch {
                Issue.record("unexpected error \(error)")
            }
            let loaded = ConfigurationLoader().read(data: data, fileName: "x.json", format: .json)
            for diagnostic in loaded.diagnostics {
                #expect(diagnostic.location != nil || diagnostic.path != nil, "\(mutation): \(diagnostic)")
            }
        }
    }

    /// The first 40 kB of a bundled session; its absence fails the test.
    static func sessionSeed() throws -> Data {
        let data = try Data(contentsOf: Fixtures.repositoryURL("sessions/session-0001.jsonl"))
        #expect(data.count > 40_000)
        return Data(data.prefix(40_000))
    }

    @Test("mutated sessions never crash: a bad header is an error with a line, bad events are warnings with lines, and replay runs on the rest")
    func sessions() async throws {
        let pipeline = try PipelineBuilder().build()
        let sessionSeed = try Self.sessionSeed()
        await pinnedPropertyCheck(
            count: 300,
            input: zip(
                Gen.int(in: 0...1000), Gen.int(in: 0...5), Gen.double(in: 0...1),
                Gen.int(in: 1...40), Gen.uint8())
        ) { seed, kind, position, length, byte in
            let mutation = Self.mutation(seed, kind, position, length, byte)
            let data = mutation.apply(to: sessionSeed)
            do {
                var reader = try SessionReader(data: data, name: "m.jsonl")
                var replayer = try SessionReplayer(header: reader.header, settings: ReplaySettings())
                while let event = reader.next() {
                    if let point = replayer.apply(event, line: reader.line) {
                        _ = RestoreEvaluation.evaluate(point, pipeline: pipeline, policy: ResumePolicy())
                    }
                }
                for warning in reader.takeWarnings() { #expect(warning.line != nil, "\(mutation): \(warning)") }
            } catch let error as SessionIssue {
                // Only an empty file has no line to name: the seed is never empty.
                #expect(error.severity == .error && (error.line != nil || data.isEmpty), "\(mutation): \(error)")
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test("a 100,000-entry dictionary reads in order, each key once")
    func largeDictionary() throws {
        // Regression: containers were copied on every insertion, which made this quadratic.
        var document = "<plist><dict>"
        for index in 0..<100_000 { document += "<key>k\(index)</key><integer>\(index)</integer>" }
        document += "</dict></plist>"
        let members = try #require(try PropertyListReader().read(Data(document.utf8)).dictionaryValue)
        #expect(members.count == 100_000)
        #expect(members.keys.first == "k0")
        #expect(members.keys.last == "k99999")
        #expect(members["k4242"]?.value == .integer(4242))
        try PropertyListReader().check(Data(document.utf8))
    }
}
