import Foundation
import PropertyBased
import Testing
import TimelineEngineCore
import TimelineEngineFormats
import TimelineEngineLoading
import TimelineEngineTestSupport

/// Properties of the merge on random caches and answers, and of reading damaged API answers.
@Suite("Loading properties", .ownThread, .timeLimit(.minutes(30)))
struct LoadingPropertyTests {
    /// A small deterministic generator, so a failing seed reproduces.
    struct Draw {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(1, bound)))
        }
    }

    /// Up to 30 posts drawn from ids 0…39, each with one of two texts, newest first by id.
    static func posts(_ draw: inout Draw) -> [Post] {
        let count = draw.next(31)
        var ids: [Int] = []
        for _ in 0..<count { ids.append(draw.next(40)) }
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        return ids.sorted().map {
            Post(id: "p\($0)", createdAt: base.addingTimeInterval(Double(-60 * $0)), text: draw.next(4) == 0 ? "edited \($0)" : "post \($0)")
        }
    }

    @Test("every answer post is in the merge once, in the answer's order; every cached post is kept or removed, never both")
    func mergeInvariants() async {
        await pinnedPropertyCheck(count: 500, input: zip(Gen.int(in: 0...1_000_000), Gen.int(in: 0...2))) { seed, coverageIndex in
            var draw = Draw(state: UInt64(seed))
            let cached = Self.posts(&draw)
            let fetched = Self.posts(&draw)
            let coverage: TimelineMerge.Coverage = [.complete, .head, .window][coverageIndex]
            let merge = TimelineMerge(cached: cached, fetched: fetched, coverage: coverage)
            let mergedIds = merge.posts.map(\.id)
            #expect(Set(mergedIds).count == mergedIds.count)
            var fetchedIds: [String] = []
            for post in fetched where !fetchedIds.contains(post.id) { fetchedIds.append(post.id) }
            #expect(mergedIds.filter { fetchedIds.contains($0) } == fetchedIds)
            let cachedOnly = Set(cached.map(\.id)).subtracting(fetchedIds)
            #expect(Set(merge.removed).union(merge.retained) == cachedOnly)
            #expect(Set(merge.removed).isDisjoint(with: merge.retained))
            #expect(Set(merge.removed).isDisjoint(with: mergedIds))
            #expect(merge.added.count + merge.updated.count + merge.unchanged == fetchedIds.count)
            if coverage == .complete { #expect(merge.retained.isEmpty) }
            for post in merge.posts where fetchedIds.contains(post.id) {
                #expect(post.text == fetched.first { $0.id == post.id }?.text)
            }
        }
    }

    static let answers: [(Data, TimelineFormat)] = [
        (try! Data(contentsOf: Fixtures.url("api/mastodon-home.json")), .mastodon),
        (try! Data(contentsOf: Fixtures.url("api/bluesky-timeline.json")), .bluesky),
    ]

    @Test("damaged API answers are read or rejected with a line, never a crash")
    func damagedAnswers() async {
        await pinnedPropertyCheck(count: 300, input: zip(Gen.int(in: 0...1_000_000), Gen.int(in: 0...1))) { seed, which in
            var draw = Draw(state: UInt64(seed))
            let (original, format) = Self.answers[which]
            var bytes = [UInt8](original)
            switch draw.next(3) {
            case 0: bytes = Array(bytes.prefix(draw.next(bytes.count)))
            case 1:
                let start = draw.next(bytes.count)
                bytes.removeSubrange(start..<min(bytes.count, start + 1 + draw.next(200)))
            default:
                for _ in 0..<(1 + draw.next(8)) { bytes[draw.next(bytes.count)] = UInt8(draw.next(256)) }
            }
            do {
                _ = try TimelineFormat.read(Data(bytes), format: format)
            } catch let error as TimelineFormatError {
                #expect(error.location != nil, "\(error)")
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }
}
