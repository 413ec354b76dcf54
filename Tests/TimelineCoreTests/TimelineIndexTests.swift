import Foundation
import Testing
import TimelineCore

@Suite("Timeline index")
struct TimelineIndexTests {
    static let base = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("id lookup, prefix sums and offset lookup")
    func positions() {
        let posts = [Post(id: "a", createdAt: Self.base, height: 100), Post(id: "b", createdAt: Self.base, height: 50),
                     Post(id: "c", createdAt: Self.base, height: 200)]
        let index = TimelineIndex(Timeline(posts: posts, viewportHeight: 120))
        #expect(index.index(of: "b") == 1)
        #expect(index.index(of: "z") == nil)
        #expect(index.y(of: 2) == 150)
        #expect(index.contentHeight == 350)
        #expect(index.maximumContentOffset == 230)
        #expect(index.index(atOffset: 0) == 0)
        #expect(index.index(atOffset: 149.9) == 1)
        #expect(index.index(atOffset: 150) == 2)
        #expect(index.index(atOffset: 10_000) == 2)
        #expect(index.clamp(offset: -5) == 0)
        #expect(index.clamp(offset: 1000) == 230)
    }

    @Test("the time-sorted view is right when display order is not time order")
    func timeOrder() {
        let offsets: [Double] = [-10, -500, 0, -500, -90]
        let posts = offsets.enumerated().map { Post(id: "p\($0.offset)", createdAt: Self.base.addingTimeInterval($0.element)) }
        let index = TimelineIndex(Timeline(posts: posts))
        #expect(index.timeOrder == [1, 3, 4, 0, 2])
        #expect(index.newestIndex == 2)
        #expect(index.oldestIndex == 1)
        #expect(index.timeOrderPosition(atOrAfter: Self.base.addingTimeInterval(-100)) == 2)
        #expect(index.timeOrderPosition(after: Self.base.addingTimeInterval(-500).timeIntervalSince1970) == 2)
    }

    @Test("missing heights use the documented estimate")
    func heightEstimate() {
        #expect(HeightEstimate.height(forText: nil) == 72)
        #expect(HeightEstimate.height(forText: "short") == 92)
        #expect(HeightEstimate.height(forText: String(repeating: "x", count: 46)) == 112)
        #expect(HeightEstimate.height(forText: "one\ntwo\nthree") == 132)
        #expect(Post(id: "a", createdAt: Self.base, text: "short").effectiveHeight == 92)
        #expect(Post(id: "a", createdAt: Self.base, text: "short", height: 40).effectiveHeight == 40)
    }

    @Test("the text index ranks by TF-IDF cosine and matches a direct computation")
    func textIndex() {
        let texts = ["the timeline cache broke", "lunch was the best", "we rebuilt the timeline cache today", "grey weather"]
        let index = TextIndex(texts)
        let results = index.mostSimilar(to: "rebuilt timeline cache", threshold: 0.1)
        #expect(results.first?.text == 2)
        for result in results {
            #expect(abs(result.similarity - index.similarity("rebuilt timeline cache", texts[result.text])) < 1e-6)
        }
        #expect(index.mostSimilar(to: "nothing in common", threshold: 0.01).isEmpty)
        #expect(TextIndex.words("Hello, World! Ünïcode 7 x") == ["hello", "world", "ünïcode", "7"])
    }
}
