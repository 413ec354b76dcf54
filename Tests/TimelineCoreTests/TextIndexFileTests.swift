import Foundation
import Testing
import TimelineEngineSearch
import TimelineEngineSessionSimulation
import TimelineEngineTestSupport

@testable import TimelineEngineCore

/// A text index written to a file and mapped back answers as the one built in memory, and a
/// file of another timeline, or a damaged one, is refused or read without a crash.
@Suite("Text index file", .ownThread, .timeLimit(.minutes(30)))
struct TextIndexFileTests {
    static func texts() throws -> [String] {
        let data = try Data(contentsOf: Fixtures.repositoryURL("Tests/Fixtures/posts/tweets-rtweet.jsonl"))
        let corpus = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line -> String? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["text"] as? String
        }
        return (0..<5_000).map { corpus[$0 % corpus.count] + " #\($0 % 89)" }
    }

    static func queries(_ texts: [String]) -> [String] {
        stride(from: 0, to: texts.count, by: 313).map { texts[$0] } + ["timeline cache", "Ünïcode straße İstanbul", ""]
    }

    @Test("a mapped index answers every query as the built one, to the bit")
    func roundTrip() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let texts = try Self.texts()
        let built = TextIndex(texts)
        let path = directory.appendingPathComponent("texts.index").path
        try TextIndexFile.write(built, to: path, tag: 42)
        let mapped = try TextIndexFile.map(path, tag: 42, textCount: texts.count)
        #expect(mapped.textCount == texts.count)
        #expect(mapped.memoryFootprint == built.memoryFootprint)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0 >= built.memoryFootprint)
        for (number, query) in Self.queries(texts).enumerated() {
            for threshold in [0.2, 0.8] {
                let expected = built.mostSimilar(to: query, threshold: threshold, limit: 5, near: number * 13)
                let found = mapped.mostSimilar(to: query, threshold: threshold, limit: 5, near: number * 13)
                #expect(found.map(\.text) == expected.map(\.text), "query \(number)")
                #expect(found.map(\.similarity) == expected.map(\.similarity), "query \(number)")
            }
            // The brute-force reference sums in a dictionary's order, which differs per call.
            #expect(abs(mapped.similarity(query, texts[0]) - built.similarity(query, texts[0])) < 1e-12)
        }
        // Empty collections round-trip too.
        try TextIndexFile.write(TextIndex([]), to: path, tag: 1)
        #expect(try TextIndexFile.map(path, tag: 1, textCount: 0).mostSimilar(to: "anything", threshold: 0.1).isEmpty)
    }

    @Test("a file of another timeline, another size or no index at all is refused, with its reason")
    func refusals() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("texts.index").path
        try TextIndexFile.write(TextIndex(TimelineIndexTests.handTexts), to: path, tag: 7)
        func refusal(_ path: String, tag: UInt64 = 7, count: Int = 4) -> String? {
            do {
                _ = try TextIndexFile.map(path, tag: tag, textCount: count)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(refusal(path, tag: 8) == "\(path): an index of another version of the timeline")
        #expect(refusal(path, count: 5) == "\(path): an index of 4 texts, not 5")
        let missing = directory.appendingPathComponent("none.index").path
        #expect(refusal(missing) == "\(missing): No such file or directory")
        let other = directory.appendingPathComponent("other.index").path
        try Data(repeating: 0x41, count: 4_096).write(to: URL(fileURLWithPath: other))
        #expect(refusal(other) == "\(other): not a text index")
        try Data(repeating: 0x41, count: 12).write(to: URL(fileURLWithPath: other))
        #expect(refusal(other) == "\(other): not an index file: 12 bytes, shorter than its header")
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        try whole.prefix(whole.count - 8).write(to: URL(fileURLWithPath: other))
        #expect(refusal(other) == "\(other): damaged: \(whole.count - 8) bytes, shorter than its header says")
        try (whole + Data(count: 8)).write(to: URL(fileURLWithPath: other))
        #expect(refusal(other) == "\(other): damaged: \(whole.count + 8) bytes, not the \(whole.count) its header says")
        var version = whole
        version[8] = 9
        try version.write(to: URL(fileURLWithPath: other))
        #expect(refusal(other) == "\(other): a text index of version 9; this engine reads version 1")
        // The first postings offset must be 0.
        var offsets = whole
        offsets[80] = 3
        try offsets.write(to: URL(fileURLWithPath: other))
        #expect(refusal(other) == "\(other): damaged: offsets out of order or out of range")
    }

    @Test("every truncation, and 400 random damages, of a real index are refused or read without a crash")
    func damage() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let texts = Array(try Self.texts().prefix(300))
        let path = directory.appendingPathComponent("texts.index").path
        try TextIndexFile.write(TextIndex(texts), to: path, tag: 3)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        let damaged = directory.appendingPathComponent("damaged.index").path
        let queries = [texts[0], texts[150], "the the the", "timeline"]
        func check(_ bytes: Data) throws {
            try bytes.write(to: URL(fileURLWithPath: damaged))
            guard let index = try? TextIndexFile.map(damaged, tag: 3, textCount: texts.count) else { return }
            for query in queries {
                for result in index.mostSimilar(to: query, threshold: 0.1, limit: 5, near: 100) {
                    #expect(result.text >= 0 && result.text < texts.count)
                }
            }
        }
        for length in stride(from: 0, to: whole.count, by: max(1, whole.count / 300)) { try check(whole.prefix(length)) }
        var generator = SimulationRandom(seed: 22)
        for _ in 0..<400 {
            var bytes = whole
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            try check(bytes)
        }
    }

    @Test("kept lookups give the same time order and ids; a damaged id table misses and never answers with another post")
    func lookups() throws {
        let directory = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        // Repeated ids (the first stays) and times out of display order, with ties.
        let posts = (0..<3_000).map { Post(id: "p\($0 % 2_900)", createdAt: base.addingTimeInterval(Double(($0 * 7_919) % 1_000))) }
        let built = TimelineIndex(Timeline(posts: posts))
        let path = directory.appendingPathComponent("t.lookups").path
        try TimelineLookups.write(built, to: path, tag: 5)
        let kept = TimelineIndex(Timeline(posts: posts), lookups: try TimelineLookups.map(path, tag: 5, count: posts.count))
        #expect(kept.timeOrder == built.timeOrder)
        #expect(kept.timeOrderTimes == built.timeOrderTimes)
        #expect(kept.newestIndex == built.newestIndex)
        #expect(kept.oldestIndex == built.oldestIndex)
        for number in stride(from: 0, to: 2_900, by: 37) { #expect(kept.index(of: "p\(number)") == number) }
        #expect(kept.index(of: "p3000") == nil)
        func refusal(tag: UInt64 = 5, count: Int = 3_000) -> String? {
            do {
                _ = try TimelineLookups.map(path, tag: tag, count: count)
                return nil
            } catch {
                return error.description
            }
        }
        #expect(refusal(tag: 6) == "\(path): the lookups of another version of the timeline")
        #expect(refusal(count: 2) == "\(path): the lookups of 3000 posts, not 2")
        var whole = try Data(contentsOf: URL(fileURLWithPath: path))
        // A display index out of range in the time order.
        var damaged = whole
        damaged.replaceSubrange(64..<68, with: [0xFF, 0xFF, 0xFF, 0x7F])
        try damaged.write(to: URL(fileURLWithPath: path))
        #expect(refusal() == "\(path): damaged: a display index out of range")
        // Every slot of the id table pointing at post 0: lookups of other ids miss.
        let slots = (whole.count - 64 - 3_000 * 4 - 3_000 * 8) / 4
        for slot in 0..<slots { whole.replaceSubrange(whole.count - (slot + 1) * 4..<whole.count - slot * 4, with: [0, 0, 0, 0]) }
        try whole.write(to: URL(fileURLWithPath: path))
        let misled = TimelineIndex(Timeline(posts: posts), lookups: try TimelineLookups.map(path, tag: 5, count: posts.count))
        #expect(misled.index(of: "p0") == 0)
        #expect(misled.index(of: "p17") == nil)
    }
}
