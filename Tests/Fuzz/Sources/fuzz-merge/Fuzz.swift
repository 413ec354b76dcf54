import Foundation
import TimelineEngineKit

/// `TimelineMerge` with hostile pages: a cache and an answer drawn from the bytes (ids from a
/// small alphabet so that they collide, times anywhere a Date can be, repeats, gaps, anchors), under
/// every coverage. What a merge must keep whatever the answer claims: every post the answer
/// brought, once; every cached post kept or reported removed; nothing removed that the answer
/// showed; gaps only below merged posts. Then the same answer as a reach's pages from the top,
/// cut to a limit: one merge of the run equals merging the pages one at a time.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ bytes: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Array(UnsafeRawBufferPointer(start: bytes, count: count))
    guard data.count >= 4 else { return 0 }
    var reader = ByteReader(data)
    let coverages: [TimelineMerge.Coverage] = [.complete, .head, .window, .lookup]
    let coverage = coverages[Int(reader.next() % 4)]
    let flags = reader.next()
    let cachedCount = Int(reader.next() % 40)
    // A cache holds each post once (the store's key).
    var cachedIds = Set<String>()
    let cached = (0..<cachedCount).map { _ in reader.post() }.filter { cachedIds.insert($0.id).inserted }
    var fetched: [Post] = []
    while !reader.isAtEnd { fetched.append(reader.post()) }
    let gaps = Set(cached.enumerated().filter { $0.offset % 3 == Int(flags % 3) }.map(\.element.id))
    let anchors = TimelineMerge.Anchors(above: flags & 0x10 != 0 ? cached.first?.id : nil, below: flags & 0x20 != 0 ? cached.last?.id : nil)
    let merge = TimelineMerge(cached: cached, fetched: fetched, coverage: coverage, cachedGaps: gaps, anchors: anchors)

    let mergedIds = merge.posts.map(\.id)
    guard Set(mergedIds).count == mergedIds.count else { fatalError("a post twice in the merged timeline: \(mergedIds)") }
    let merged = Set(mergedIds)
    let removed = Set(merge.removed)
    let fetchedIds = Set(fetched.map(\.id))
    for id in fetchedIds where !merged.contains(id) { fatalError("a post the answer brought is missing: \(id)") }
    for post in cached where !merged.contains(post.id) && !removed.contains(post.id) { fatalError("a cached post vanished unreported: \(post.id)") }
    for id in removed where fetchedIds.contains(id) { fatalError("a post the answer showed was removed: \(id)") }
    // The posts a page was asked next to are shown by it: a window's both, a head page's below.
    let shown = coverage == .window ? [anchors.above, anchors.below] : coverage == .head ? [anchors.below] : []
    for id in removed where shown.contains(id) { fatalError("an anchor was removed: \(id)") }
    guard merge.gapsBelow.isSubset(of: merged) else { fatalError("a gap below a post not in the timeline") }

    // The answer as pages from the top, cut to `limit`: one merge of the run and one merge per
    // page agree.
    let limit = 1 + Int(flags % 7)
    let goal = ReachGoal(
        postId: fetched.last?.id ?? "none", pagesByPost: false, maxPageSize: limit, headCursor: "c0",
        headLastPost: cached.first?.id, cached: Set(cached.map(\.id)))
    var pages: [[Post]] = []
    var rest = fetched[...]
    while !rest.isEmpty {
        let size = min(rest.count, 1 + Int(rest.count * Int(flags >> 4) % 11))
        pages.append(Array(rest.prefix(size)))
        rest = rest.dropFirst(size)
    }
    var run = ReachRun(goal: goal, strategy: Scripted(count: pages.count, limit: limit))
    for page in pages {
        guard let request = run.next() else { break }
        run.record(request, answer: PageAnswer(posts: page, cursor: "c"))
    }
    for exchange in run.exchanges {
        let answer = exchange.answer
        guard answer.posts.count <= limit || answer.posts.contains(where: { $0.id == goal.postId }) else {
            fatalError("an answer kept more than asked: \(answer.posts.count) > \(limit)")
        }
    }
    let once = run.merge(into: cached, gapsBelow: gaps)
    guard Set(once.posts.map(\.id)).count == once.posts.count else { fatalError("a reach merged a post twice") }
    for post in cached where !once.posts.contains(where: { $0.id == post.id }) && !once.removed.contains(post.id) {
        fatalError("a reach lost a cached post unreported: \(post.id)")
    }
    return 0
}

/// Pages from the top, as many as the test has, of `limit` posts.
struct Scripted: ReachStrategy {
    let count: Int
    let limit: Int
    var name: String { "Scripted" }
    func next(toward goal: ReachGoal, after exchanges: [ReachExchange]) -> PageRequest? {
        exchanges.count < count ? .top(cursor: "c\(exchanges.count)", limit: limit) : nil
    }
}

/// Posts from bytes: ids from 24 names (so that they repeat and collide), times from a few
/// minutes apart to the ends of what a Date holds.
struct ByteReader {
    let bytes: [UInt8]
    var index = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var isAtEnd: Bool { index + 1 >= bytes.count }
    mutating func next() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }
    mutating func post() -> Post {
        let id = next()
        let time = next()
        let seconds: Double =
            switch time {
            case 250: 1e300
            case 251: -1e300
            case 252: .infinity
            case 253: 253_402_300_799
            default: 1_700_000_000 - Double(time) * 60
            }
        return Post(id: "p\(id % 24)", createdAt: Date(timeIntervalSince1970: seconds), author: "a", text: "post \(id)")
    }
}
