import Foundation
import Testing
import TimelineEngineCore
import TimelineEngineSessionSimulation
import TimelineEngineTestSupport

@testable import TimelineEngineSearch

@Suite("Timeline index", .ownThread, .timeLimit(.minutes(30)))
struct TimelineIndexTests {
    static let base = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("id lookup, prefix sums and offset lookup")
    func positions() {
        let posts = [
            Post(id: "a", createdAt: Self.base, height: 100), Post(id: "b", createdAt: Self.base, height: 50),
            Post(id: "c", createdAt: Self.base, height: 200),
        ]
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

    @Test("the time order is the comparison sort's, ties by display index: negative, zero, equal and far-apart times")
    func timeOrderRadix() {
        var generator = SimulationRandom(seed: 7)
        let special: [Double] = [0, -0.0, -1, 1, -1e12, 1e12, 1_700_000_000, 1_700_000_000.5, -0.5, 3.25e-7]
        var times: [Double] = []
        for number in 0..<20_000 {
            let random = generator.next()
            let time: Double
            switch number % 4 {
            case 0: time = special[Int(random % UInt64(special.count))]
            case 1: time = 1_700_000_000 + Double(random % 1_000)
            case 2: time = Double(Int64(bitPattern: random) >> 20) / 1_000
            default: time = -Double(random % 5_000_000)
            }
            times.append(time)
        }
        let posts = times.enumerated().map { Post(id: "p\($0.offset)", createdAt: Date(timeIntervalSince1970: $0.element)) }
        let index = TimelineIndex(Timeline(posts: posts))
        // The times as the posts hold them (a Date counts from 2001, so some round).
        times = posts.map { $0.createdAt.timeIntervalSince1970 }
        let expected: [Int32] = (0..<Int32(times.count)).sorted { (a: Int32, b: Int32) -> Bool in
            let ta: Double = times[Int(a)]
            let tb: Double = times[Int(b)]
            return ta != tb ? ta < tb : a < b
        }
        // Compared as booleans: 20,000 numbers are no message.
        let sameOrder = index.timeOrder == expected
        let sameTimes = index.timeOrderTimes == expected.map { times[Int($0)] }
        #expect(sameOrder)
        #expect(sameTimes)
        #expect(TimelineIndex(Timeline(posts: [])).timeOrder.isEmpty)
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

    /// TF-IDF by hand, for the four texts below (N = 4): idf = ln((N + 1) / (df + 1)) + 1, so
    /// idf(the, df 3) = 1.22314, idf(timeline and cache, df 2) = 1.51083, idf(a word in one
    /// text) = 1.91629, idf(an unknown word) = 2.60944; a word's weight is (1 + ln tf) × idf.
    /// "rebuilt timeline cache" is (1.91629, 1.51083, 1.51083), |q| = 2.83734;
    /// text 2 "we rebuilt the timeline cache today" has |d| = √(4 × 1.91629² + 1.22314² + 2 × 1.51083²) = 4.51386,
    ///   q·d = 1.91629² + 2 × 1.51083² = 8.23733, cosine 8.23733 / (2.83734 × 4.51386) = 0.694510;
    /// text 0 "the timeline cache broke": |d| = √(1.22314² + 2 × 1.51083² + 1.91629²) = 3.12808,
    ///   q·d = 2 × 1.51083² = 4.56518, cosine 0.509837.
    /// "cache cache zebra": cache weighs (1 + ln 2) × 1.51083 = 2.55805, zebra 2.60944 (unknown,
    /// counted in the norm only), |q| = 3.65414; cosines 2.55805 × 1.51083 / (3.65414 × 3.12808) =
    /// 0.339004 for text 0 and 2.55805 × 1.51083 / (3.65414 × 4.51386) = 0.255930 for text 2.
    static let handTexts = ["the timeline cache broke", "lunch was the best", "we rebuilt the timeline cache today", "grey weather"]

    @Test("TF-IDF cosines and their ranking match the hand-worked values")
    func textIndexByHand() {
        let index = TextIndex(Self.handTexts)
        let results = index.mostSimilar(to: "rebuilt timeline cache", threshold: 0.1)
        #expect(results.map(\.text) == [2, 0])
        #expect(abs(results[0].similarity - 0.694510) < 1e-5)
        #expect(abs(results[1].similarity - 0.509837) < 1e-5)
        let repeated = index.mostSimilar(to: "cache cache zebra", threshold: 0.1)
        #expect(repeated.map(\.text) == [0, 2])
        #expect(abs(repeated[0].similarity - 0.339004) < 1e-5)
        #expect(abs(repeated[1].similarity - 0.255930) < 1e-5)
        // The threshold cuts, and the limit keeps the best.
        #expect(index.mostSimilar(to: "rebuilt timeline cache", threshold: 0.6).map(\.text) == [2])
        #expect(index.mostSimilar(to: "rebuilt timeline cache", threshold: 0.1, limit: 1).map(\.text) == [2])
        // At 0.5 and above the search scans only the rarest words' postings (prefix filtering);
        // the answer is the same.
        #expect(index.mostSimilar(to: "rebuilt timeline cache", threshold: 0.5).map(\.text) == [2, 0])
    }

    @Test("on 24,000 real texts, indexed on every core, the bounded search agrees with a brute-force scan for every query drawn from them")
    func textIndexAtScale() throws {
        let data = try Data(contentsOf: Fixtures.repositoryURL("Tests/Fixtures/posts/tweets-rtweet.jsonl"))
        let corpus = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line -> String? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["text"] as? String
        }
        #expect(corpus.count == 2369)
        // 24,000 texts: each real text with a few words of a second one, so that words repeat
        // across many texts as in a large timeline and lists outgrow the postings cap.
        let texts = (0..<24_000).map {
            corpus[$0 % corpus.count] + " " + corpus[($0 * 7) % corpus.count].split(separator: " ").prefix(3).joined(separator: " ")
        }
        #expect(texts.count >= TextIndex.parallelThreshold)
        let index = TextIndex(texts)
        for number in stride(from: 0, to: 24_000, by: 4_999) {
            let query = texts[number]
            let best = index.mostSimilar(to: query, threshold: 0.8, limit: 1).first
            var bruteBest = (text: -1, similarity: 0.0)
            for (other, text) in texts.enumerated() {
                let similarity = index.similarity(query, text)
                if similarity > bruteBest.similarity + 1e-9 { bruteBest = (other, similarity) }
            }
            #expect(best != nil, "query \(number)")
            #expect(abs((best?.similarity ?? 0) - bruteBest.similarity) < 1e-6, "query \(number)")
        }
    }

    @Test("an index built in 1, 2, 3 or 7 parts answers every query the same, to the bit")
    func textIndexParts() throws {
        let data = try Data(contentsOf: Fixtures.repositoryURL("Tests/Fixtures/posts/tweets-rtweet.jsonl"))
        let corpus = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line -> String? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["text"] as? String
        }
        let texts = (0..<6_000).map { corpus[$0 % corpus.count] + " #\($0 % 97)" }
        let serial = TextIndex(texts, parallelism: 1)
        let queries = stride(from: 0, to: texts.count, by: 397).map { texts[$0] } + ["timeline cache", "Ünïcode straße İstanbul"]
        for parts in [2, 3, 7] {
            let parallel = TextIndex(texts, parallelism: parts)
            for (number, query) in queries.enumerated() {
                for threshold in [0.2, 0.8] {
                    let expected = serial.mostSimilar(to: query, threshold: threshold, limit: 5, near: number * 11)
                    let found = parallel.mostSimilar(to: query, threshold: threshold, limit: 5, near: number * 11)
                    #expect(found.map(\.text) == expected.map(\.text), "\(parts) parts, query \(number)")
                    #expect(found.map(\.similarity) == expected.map(\.similarity), "\(parts) parts, query \(number)")
                }
            }
        }
    }

    /// The words of a text as the index split them before it split them into bytes: the
    /// reference for `TextIndex.words`.
    static func referenceWords(_ text: String) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        func flush() {
            if current.count >= 2 || current.first.map({ $0.properties.numericType != nil }) == true { words.append(String(current)) }
            current = String.UnicodeScalarView()
        }
        for scalar in text.unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                current.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
            } else {
                flush()
            }
        }
        flush()
        return words
    }

    @Test("words split as the reference does, on real posts and on letters whose lower case is longer, numerals and marks")
    func wordsMatchTheReference() throws {
        let data = try Data(contentsOf: Fixtures.repositoryURL("Tests/Fixtures/posts/tweets-rtweet.jsonl"))
        let corpus = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line -> String? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["text"] as? String
        }
        let tricky = [
            "İstanbul İ I", "ǅemal ǈ", "² ³ Ⅻ ⅻ 7 x 42", "STRASSE Straße", "e\u{301}te\u{301} cafe\u{301}", "👩‍💻 code 🚀x", "日本語のテキスト",
            "Ωmega ΣΊΣΥΦΟΣ", "a-b_c d1 1d", "", "   ", "ꞋA 𝒳y",
            // Words that start in place and leave it: upper case, a letter beyond ASCII, at the start, middle and end.
            "abcDEF ABC abc x 1 a1B2 z", "cafÉ naïve abÉcd É", "a\u{2014}b—cd\u{00A0}ef", "x𝒳 𝒳x 1² ²1", "end.",
        ]
        for text in corpus + tricky {
            #expect(TextIndex.words(text) == Self.referenceWords(text), "\(text)")
        }
    }

    @Test("one splitter reused over real posts splits as the reference, before and after it keeps a table of the scalars it met")
    func reusedSplitterMatchesTheReference() throws {
        let data = try Data(contentsOf: Fixtures.repositoryURL("Tests/Fixtures/posts/tweets-rtweet.jsonl"))
        let corpus = String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line -> String? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["text"] as? String
        }
        let tricky = [
            "İstanbul İ I", "ǅemal ǈ", "² ³ Ⅻ ⅻ 7 x 42", "cafÉ naïve abÉcd É", "x𝒳 𝒳x 1² ²1", "👩‍💻 code 🚀x", "日本語のテキスト", "\u{10FFFD}a\u{E0041}b",
            // Lower case longer than the text: the scratch buffer grows in the middle of a word.
            String(repeating: "İ", count: 500), String(repeating: "aİ", count: 300) + " x İİ", "ȺȺȺ " + String(repeating: "Ⱥ", count: 400),
        ]
        let splitter = WordSplitter()
        #expect(!splitter.remembersScalars)
        // Twice over: the second round reads every scalar from the table.
        for text in tricky + corpus + tricky + corpus {
            var words: [String] = []
            splitter.forEachWord(in: text) { words.append(String(decoding: $0, as: UTF8.self)) }
            #expect(words == Self.referenceWords(text), "\(text)")
        }
        #expect(splitter.remembersScalars)
    }

    @Test("a part's vocabulary numbers words as a word table does: shared first eight bytes, every length, growth, repeats")
    func partVocabularyNumbersAsAWordTable() {
        var random = SimulationRandom(seed: 22)
        // Words that share their first eight bytes and differ after, words of one to forty bytes,
        // and words with bytes past ASCII: far more than the first capacity, so the table grows.
        var words: [[UInt8]] = []
        for number in 0..<6_000 {
            words.append(Array("abcdefgh\(number)".utf8))
            words.append(Array(String(number, radix: 36).utf8))
            let length = 1 + Int(random.next() % 40)
            words.append((0..<length).map { _ in UInt8(0x61 + random.next() % 26) })
            words.append(Array("é\(number)ü".utf8))
        }
        words += [Array("abcdefgh".utf8), Array("abcdefg".utf8), Array("abcdefghi".utf8), Array("a".utf8)]
        var vocabulary = PartVocabulary(capacity: 1)
        var table = WordTable(capacity: 1)
        for round in 0..<2 {
            for (position, word) in words.enumerated() {
                let repeated = round == 1 || position % 3 == 0
                for _ in 0..<(repeated ? 2 : 1) {
                    let expected = word.withUnsafeBufferPointer { table.insert($0) }
                    #expect(word.withUnsafeBufferPointer { vocabulary.insert($0) } == expected, "\(String(decoding: word, as: UTF8.self))")
                }
            }
        }
        #expect(vocabulary.count == table.count)
        let handedOver = vocabulary.table()
        #expect(handedOver.count == table.count)
        for id in 0..<table.count {
            #expect(handedOver.withWord(id) { Array($0) } == table.withWord(id) { Array($0) })
            #expect(handedOver.hash(of: id) == table.hash(of: id))
        }
    }

    @Test("a part counts each text's words once each in the order of first use, in short texts and past the scanned limit")
    func partWordsCountsEachTextsWords() {
        var random = SimulationRandom(seed: 7)
        // Texts of 1 to 400 words drawn from 300, so that long ones pass the 64 distinct words
        // found by a scan, with repeats, capitals and words beyond ASCII; and empty texts.
        let pool = (0..<300).map { number in number % 7 == 0 ? "Wörd\(number)" : "w\(String(number, radix: 36))" }
        let texts =
            (0..<200).map { number -> String in
                guard number % 50 != 0 else { return "" }
                let count = 1 + Int(random.next() % 400)
                return (0..<count).map { _ in pool[Int(random.next() % UInt64(pool.count))] }.joined(separator: number % 2 == 0 ? " " : ", ")
            } + [String(repeating: "long ", count: 5_000)]
        let part = PartWords(texts[...])
        #expect(part.textCount == texts.count)
        for (number, text) in texts.enumerated() {
            var expected: [(word: String, count: Int32)] = []
            for word in TextIndex.words(text) {
                if let at = expected.firstIndex(where: { $0.word == word }) { expected[at].count += 1 } else { expected.append((word, 1)) }
            }
            let entries = part.textStarts[number]..<part.textStarts[number + 1]
            let found = entries.map { entry in
                (word: part.table.withWord(Int(part.words[entry])) { String(decoding: $0, as: UTF8.self) }, count: part.counts[entry])
            }
            #expect(found.map(\.word) == expected.map(\.word), "text \(number)")
            #expect(found.map(\.count) == expected.map(\.count), "text \(number)")
        }
        #expect(texts.contains { Set(TextIndex.words($0)).count > 64 })
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

@Suite("Timeline index edge cases", .timeLimit(.minutes(10)))
struct TimelineIndexEdgeTests {
    static let base = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("a repeated id finds its first occurrence, by scan and by table alike")
    func duplicateIds() {
        let posts = ["a", "b", "a", "c", "b"].enumerated().map { Post(id: $0.element, createdAt: Self.base.addingTimeInterval(Double($0.offset))) }
        let index = TimelineIndex(Timeline(posts: posts))
        // The first lookups scan; past them the id table answers: the same either way.
        for _ in 0..<6 {
            #expect(index.index(of: "a") == 0)
            #expect(index.index(of: "b") == 1)
            #expect(index.index(of: "c") == 3)
            #expect(index.index(of: "z") == nil)
        }
    }

    @Test("ties for newest and oldest go to the lower display index")
    func ties() {
        let times: [Double] = [5, 9, 1, 9, 1]
        let index = TimelineIndex(
            Timeline(posts: times.enumerated().map { Post(id: "p\($0.offset)", createdAt: Self.base.addingTimeInterval($0.element)) }))
        #expect(index.newestIndex == 1)
        #expect(index.oldestIndex == 2)
        #expect(index.timeOrder == [2, 4, 0, 1, 3])
    }

    @Test("an empty timeline: no index, no anchor, no newest, zero content")
    func empty() {
        let index = TimelineIndex(Timeline(posts: [], viewportHeight: 500))
        #expect(index.count == 0)
        #expect(index.index(of: "a") == nil)
        #expect(index.index(atOffset: 0) == nil)
        #expect(index.newestIndex == nil)
        #expect(index.oldestIndex == nil)
        #expect(index.contentHeight == 0)
        #expect(index.maximumContentOffset == 0)
        #expect(index.y(of: 0) == 0)
        #expect(index.textIndex.mostSimilar(to: "anything", threshold: 0).isEmpty)
    }

    @Test("y(of:) clamps below 0 and past the end to the content's edges")
    func yClamps() {
        let index = TimelineIndex(Timeline(posts: (0..<3).map { Post(id: "p\($0)", createdAt: Self.base, height: 100) }))
        #expect(index.y(of: -4) == 0)
        #expect(index.y(of: 1) == 100)
        #expect(index.y(of: 3) == 300)
        #expect(index.y(of: 99) == 300)
    }

    @Test("the lazy text index and time order are built once when many threads ask at once")
    func lazyFromManyThreads() async {
        let posts = (0..<2000).map {
            Post(id: "p\($0)", createdAt: Self.base.addingTimeInterval(Double(($0 * 7919) % 2000)), text: "post number \($0) about \($0 % 17)")
        }
        let index = TimelineIndex(Timeline(posts: posts))
        let answers = await withTaskGroup(of: (Int, Int?, Int?).self) { group in
            for task in 0..<16 {
                group.addTask {
                    let best = index.textIndex.mostSimilar(to: "post number \(task) about \(task % 17)", threshold: 0.5, limit: 1).first?.text
                    return (task, best, index.newestIndex)
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 16)
        for (task, best, newest) in answers {
            #expect(best == task)
            #expect(newest == index.timeOrder.last.map(Int.init))
        }
        #expect(index.textIndexBuildNanoseconds != nil)
    }

    @Test("a word with no more postings than the cap is searched whole: the best text is found wherever it is")
    func exactBelowTheCap() {
        // "zebra" and "lion" each in about 100 texts (under the cap of 128 at a high threshold);
        // the one text with both comes 90th in each list, found only through those lists.
        var texts = (0..<400).map { "filler text number \($0)" }
        for position in 0..<100 {
            texts[position * 4] = "zebra runs \(position)"
            texts[position * 4 + 1] = "lion sleeps \(position)"
        }
        texts[90 * 4 + 1] = "zebra lion"
        let index = TextIndex(texts)
        #expect(index.mostSimilar(to: "zebra lion", threshold: 0.8, limit: 1).first?.text == 361)
    }

    @Test("past the cap, the top of the timeline and the texts around the saved position are searched")
    func capAndNearHint() {
        // "zebra" in 1,000 texts, past the cap; the near-copy of the query is the 600th of them.
        var texts = (0..<1000).map { "zebra walks \($0)" }
        texts[600] = "zebra giraffe lion"
        let index = TextIndex(texts)
        #expect(index.mostSimilar(to: "zebra giraffe lion", threshold: 0.8, limit: 1).first?.text == 600)  // rare words: exact
        texts[600] = "zebra walks giraffe"
        let common = TextIndex(texts.map { $0.replacingOccurrences(of: "giraffe", with: "walks") })
        let query = "zebra walks walks"
        // Every word is in every text: without a hint only the first 64 postings are candidates.
        #expect(common.mostSimilar(to: query, threshold: 0.8, limit: 1, near: 600).first?.text == 600)
    }
}
