import Foundation
import TimelineEngineCore

/// A TF-IDF word index over texts, answering "which texts are most similar to this one" by
/// cosine similarity without scanning every text.
///
/// Texts are split into lower-cased words (runs of letters and digits of at least two
/// characters, and numbers of any length). A word's weight in a text is `(1 + ln tf) × idf` with
/// `idf = ln((N + 1) / (df + 1)) + 1`; similarity is the cosine of the two weight vectors, in
/// [0, 1]. Each word keeps a postings list (text number and weight), so a query only visits
/// the texts that share a word with it, and a bounded number of them (`mostSimilar`).
public final class TextIndex: Sendable {
    /// A text's weight for one word.
    struct Posting {
        var text: Int32
        var weight: Float
        /// The text's norm, kept beside each of its postings: a query reads it with the
        /// posting, where a separate array of norms missed the cache for every candidate.
        var norm: Float
    }

    /// One of a text's words and its weight there.
    struct TextWord {
        var word: Int32
        var weight: Float
    }

    /// The vocabulary, postings lists, per-text words and document frequencies, built in
    /// memory or mapped from a file.
    let columns: TextIndexColumns
    public let textCount: Int

    /// Collections of at least this many texts are indexed on every core by default.
    public static let parallelThreshold = 20_000

    /// How many parts a collection of `count` texts is indexed in by default: one per core
    /// from `parallelThreshold` texts on, one below.
    public static func defaultParallelism(for count: Int) -> Int {
        count >= parallelThreshold ? max(1, min(ProcessInfo.processInfo.activeProcessorCount, 16)) : 1
    }

    /// Indexes `texts` in `parallelism` parts at once. The index is the same for any number of
    /// parts: the same word numbers, postings and weights.
    public init(_ texts: [String], parallelism: Int? = nil) {
        let parts = max(1, min(parallelism ?? Self.defaultParallelism(for: texts.count), max(1, texts.count)))
        let ranges = (0..<parts).map { part in texts.count * part / parts..<texts.count * (part + 1) / parts }
        // 1. Each part's words, numbered within the part, and each text's words with their counts.
        let scanned = ParallelParts<PartWords>(count: parts)
        scanned.run { part in PartWords(texts[ranges[part]]) }
        var partWords = scanned.results
        // 2. One numbering: the first part's, then each later part's new words in the order
        // they appear, which is the order of their first use in the whole collection.
        var vocabulary = partWords[0].table
        var mappings: [[Int32]] = [Array(0..<Int32(vocabulary.count))]
        for part in 1..<max(1, parts) {
            let table = partWords[part].table
            mappings.append((0..<table.count).map { id in table.withWord(id) { vocabulary.insert($0, hash: table.hash(of: id)) } })
            partWords[part].table = WordTable()
        }
        partWords[0].table = WordTable()
        let wordCount = vocabulary.count
        let parted = partWords
        let numbering = mappings
        // 3. Document frequencies per part, then where each part's postings of a word begin.
        let frequencies = ParallelParts<[Int32]>(count: parts)
        frequencies.run { part in
            var counts = [Int32](repeating: 0, count: wordCount)
            let mapping = numbering[part]
            for word in parted[part].words { counts[Int(mapping[Int(word)])] += 1 }
            return counts
        }
        let partFrequencies = frequencies.results
        var documentFrequency = [Int32](repeating: 0, count: wordCount)
        var postingStarts = [Int](repeating: 0, count: wordCount + 1)
        var cursors = [[Int]](repeating: [], count: parts)
        for part in 0..<parts { cursors[part].reserveCapacity(wordCount) }
        var next = 0
        for word in 0..<wordCount {
            postingStarts[word] = next
            for part in 0..<parts {
                cursors[part].append(next)
                next += Int(partFrequencies[part][word])
            }
            documentFrequency[word] = Int32(next - postingStarts[word])
        }
        postingStarts[wordCount] = next
        // 4. Weights, postings and norms; each part writes its own texts' postings and norms.
        let total = Double(texts.count)
        let starts = cursors
        // Each word's idf once, not once per text that has it.
        let idf = documentFrequency.map { TextIndex.idf($0, total) }
        // Every posting and every text word is written once below, by the part whose text it is.
        let postings = SharedBuffer<Posting>(uninitializedCount: next)
        // Each part's texts are a run of texts, so their words are a run of `textWords`.
        var partBases = [0]
        for part in 0..<parts { partBases.append(partBases[part] + parted[part].words.count) }
        let bases = partBases
        let textWords = SharedBuffer<TextWord>(uninitializedCount: next)
        let textStarts = SharedBuffer<Int>(count: texts.count + 1, initial: next)
        let weighted = ParallelParts<Bool>(count: parts)
        weighted.run { part in
            let words = parted[part]
            let mapping = numbering[part]
            var cursor = starts[part]
            let first = ranges[part].lowerBound
            for local in 0..<words.textCount {
                let entries = words.textStarts[local]..<words.textStarts[local + 1]
                textStarts[first + local] = bases[part] + entries.lowerBound
                // The weights and the norm first, then the postings, which carry the norm.
                var squares = 0.0
                for entry in entries {
                    let word = Int(mapping[Int(words.words[entry])])
                    let count = words.counts[entry]
                    let weight = (count == 1 ? 1 : 1 + log(Double(count))) * idf[word]
                    textWords[bases[part] + entry] = TextWord(word: Int32(word), weight: Float(weight))
                    squares += weight * weight
                }
                let norm = Float(squares.squareRoot())
                for entry in entries {
                    let textWord = textWords[bases[part] + entry]
                    postings[cursor[Int(textWord.word)]] = Posting(text: Int32(first + local), weight: textWord.weight, norm: norm)
                    cursor[Int(textWord.word)] += 1
                }
            }
            return true
        }
        self.columns = TextIndexColumns(
            postingStarts: postingStarts, postings: postings, textStarts: textStarts, textWords: textWords,
            documentFrequency: documentFrequency, vocabulary: vocabulary)
        self.textCount = texts.count
    }

    /// An index over `textCount` texts from columns made elsewhere (a mapped file).
    init(columns: TextIndexColumns, textCount: Int) {
        self.columns = columns
        self.textCount = textCount
    }

    /// The bytes the index's arrays hold: postings, per-text words, vocabulary and frequencies.
    public var memoryFootprint: Int { columns.byteCount }

    static func idf(_ frequency: Int32, _ total: Double) -> Double {
        log((total + 1) / (Double(frequency) + 1)) + 1
    }

    /// The lower-cased words of `text`: runs of letters and digits of two or more characters,
    /// and numbers of any length.
    public static func words(_ text: String) -> [String] {
        var words: [String] = []
        let splitter = WordSplitter()
        splitter.forEachWord(in: text) { words.append(String(decoding: $0, as: UTF8.self)) }
        return words
    }

    /// Word `word`'s postings, in text order, for as long as `body` runs.
    private func withPostings<Result>(of word: Int, _ body: (UnsafeBufferPointer<Posting>) -> Result) -> Result {
        body(UnsafeBufferPointer(rebasing: columns.postings[columns.postingStarts[word]..<columns.postingStarts[word + 1]]))
    }

    /// The weight of `word` in text `text`, if the text has it: a scan of the text's own words.
    private func weight(of word: Int32, in text: Int32) -> Double? {
        let all = columns.textWords
        var entry = columns.textStarts[Int(text)]
        let end = columns.textStarts[Int(text) + 1]
        while entry < end {
            if all[entry].word == word { return Double(all[entry].weight) }
            entry += 1
        }
        return nil
    }

    /// The number of a word given as a string, if some text has it.
    private func wordID(_ word: String) -> Int32? {
        var word = word
        return word.withUTF8 { columns.vocabulary.find($0) }
    }

    /// At most this many postings of one word are visited to find candidates: the texts that
    /// come first in the timeline (lowest text number). A word found in more texts still counts
    /// in the scores of the candidates that other words bring.
    public static let maximumPostingsPerWord = 512

    /// The cap at a threshold of 0.5 or more, where a text must share the query's rarest words
    /// to qualify: a near-copy is among the first postings of each.
    public static let maximumPostingsPerWordAtHighThresholds = 128

    /// At most this many candidates are scored exactly, best bound first.
    public static let maximumExactScores = 256

    /// The exact scores at a threshold of 0.5 or more, where a qualifying text has a high
    /// bound and comes first.
    public static let maximumExactScoresAtHighThresholds = 32

    /// The texts whose cosine similarity with `query` is at least `threshold`, most similar
    /// first (ties: lower text number first), at most `limit` of them.
    ///
    /// The work per query is bounded, whatever the collection's size:
    /// - The query's words are taken rarest first. At a threshold of 0.5 or more only the
    ///   rarest words whose weight could not be made up by the others are scanned (prefix
    ///   filtering: by Cauchy–Schwarz a text sharing none of them stays below the threshold);
    ///   below it, every word is scanned.
    /// - A scanned word contributes at most `maximumPostingsPerWord` postings as candidates:
    ///   all of them when it has no more; otherwise the first half (the top of the timeline,
    ///   where new and re-drafted posts land) and, when `near` gives a text number (the saved
    ///   position), the half around it.
    /// - Each candidate's score from the scanned postings, plus the largest share the other
    ///   words could add (the norm of their weights over the query's), bounds its cosine.
    ///   Candidates are scored exactly (from the candidate's own words) in order of
    ///   that bound, and the search stops when the bound can no longer reach the threshold or
    ///   the `limit`-th best, or after `maximumExactScores` candidates.
    ///
    /// When no scanned word has more postings than the cap, every text that can reach the
    /// threshold is a candidate and the result is exact; otherwise texts found only past the
    /// cap are not considered.
    public func mostSimilar(to query: String, threshold: Double, limit: Int = 10, near: Int? = nil) -> [(text: Int, similarity: Double)] {
        guard textCount > 0, limit > 0 else { return [] }
        // The query's words in the order they first appear, so that every sum below is taken in
        // one order and the same query gives the same score to the bit (a dictionary's order
        // differs from one instance to the next).
        var found: [(word: Int32, count: Int32)] = []
        var missing: [(word: [UInt8], count: Int)] = []
        let splitter = WordSplitter()
        splitter.forEachWord(in: query) { word in
            if let id = columns.vocabulary.find(word) {
                if let at = found.firstIndex(where: { $0.word == id }) { found[at].count += 1 } else { found.append((id, 1)) }
            } else if let at = missing.firstIndex(where: { $0.word.elementsEqual(word) }) {
                missing[at].count += 1
            } else {
                missing.append((Array(word), 1))
            }
        }
        guard !found.isEmpty else { return [] }
        // The query's norm counts every word, known or not, so unknown words lower the score.
        let total = Double(textCount)
        let documentFrequency = columns.documentFrequency
        var queryWeights: [(word: Int32, weight: Double)] = []
        var squares = 0.0
        for (word, count) in found {
            let weight = (1 + log(Double(count))) * TextIndex.idf(documentFrequency[Int(word)], total)
            queryWeights.append((word, weight))
            squares += weight * weight
        }
        for (_, count) in missing {
            let weight = (1 + log(Double(count))) * TextIndex.idf(0, total)
            squares += weight * weight
        }
        let queryNorm = squares.squareRoot()
        let order = queryWeights.sorted {
            documentFrequency[Int($0.word)] != documentFrequency[Int($1.word)]
                ? documentFrequency[Int($0.word)] < documentFrequency[Int($1.word)] : $0.word < $1.word
        }
        // The scanned words: at a high threshold the shortest prefix whose remaining weight
        // cannot reach it; otherwise all.
        var scanned = order.count
        if threshold >= 0.5 {
            var rest = order.reduce(0.0) { $0 + $1.weight * $1.weight }
            let bound = threshold * threshold * queryNorm * queryNorm
            scanned = 0
            while scanned < order.count, rest >= bound {
                rest -= order[scanned].weight * order[scanned].weight
                scanned += 1
            }
        }
        let cap = threshold >= 0.5 ? TextIndex.maximumPostingsPerWordAtHighThresholds : TextIndex.maximumPostingsPerWord
        // Per candidate: the dot product so far, and the squares of its own weights found so far.
        var partial: [Int32: (dot: Double, squares: Double, norm: Float)] = [:]
        partial.reserveCapacity(min(textCount, scanned * cap))
        // The words whose postings were visited only in part, with the ranges of text numbers
        // visited: a candidate in one of them that was not met does not hold the word.
        var truncated: [(word: Int, weight: Double, ranges: [ClosedRange<Int32>])] = []
        var unscanned: [(word: Int, weight: Double)] = []
        for (position, (word, weight)) in order.enumerated() {
            guard position < scanned else {
                unscanned.append((Int(word), weight))
                continue
            }
            withPostings(of: Int(word)) { list in
                let windows = TextIndex.windows(count: list.count, cap: cap, near: near.map { TextIndex.position(before: Int32($0), in: list) })
                for window in windows {
                    // A text number out of range (a damaged mapped file) is no candidate.
                    for posting in list[window] where posting.text >= 0 && Int(posting.text) < textCount {
                        let value = Double(posting.weight)
                        TextIndex.add(weight * value, value * value, norm: posting.norm, to: &partial[posting.text, default: (0, 0, 0)])
                    }
                }
                if list.count > cap {
                    // Postings are in text order; min and max keep a damaged mapped file from making
                    // a reversed range.
                    truncated.append(
                        (
                            Int(word), weight,
                            windows.map { window in
                                let first = list[window.lowerBound].text
                                let last = list[window.upperBound - 1].text
                                return min(first, last)...max(first, last)
                            }
                        ))
                }
            }
        }
        if truncated.isEmpty && unscanned.isEmpty {
            return ranked(partial, queryNorm: queryNorm, threshold: threshold, limit: limit)
        }
        let unscannedSquares = unscanned.reduce(0.0) { $0 + $1.weight * $1.weight }
        // Bounds: what is known plus the most the unknown words could add (Cauchy–Schwarz over
        // the unknown weights of the query and what is left of the text's norm).
        var bounds: [(text: Int32, bound: Double, dot: Double, squares: Double, norm: Double)] = []
        for (text, known) in partial {
            let textNorm = Double(known.norm)
            guard textNorm > 0 else { continue }
            var unknownSquares = unscannedSquares
            for word in truncated where !word.ranges.contains(where: { $0.contains(text) }) { unknownSquares += word.weight * word.weight }
            let left = max(0, textNorm * textNorm - known.squares).squareRoot()
            let bound = (known.dot + unknownSquares.squareRoot() * left) / (textNorm * queryNorm)
            if bound + 1e-12 >= threshold { bounds.append((text, bound, known.dot, known.squares, textNorm)) }
        }
        // Only the best `exactScores` bounds can be scored: keep those, not a sort of all.
        let exactScores = threshold >= 0.5 ? TextIndex.maximumExactScoresAtHighThresholds : TextIndex.maximumExactScores
        bounds = TextIndex.best(exactScores, of: bounds) { $0.bound != $1.bound ? $0.bound > $1.bound : $0.text < $1.text }
        var results: [(text: Int, similarity: Double)] = []
        for candidate in bounds {
            let needed = results.count < limit ? threshold : max(threshold, results[results.count - 1].similarity)
            if candidate.bound + 1e-12 < needed { break }
            let textNorm = candidate.norm
            // The unknown words, heaviest first; stop early when even the rest cannot reach `needed`.
            var unknown = unscanned.map { (word: $0.word, weight: $0.weight) }
            for word in truncated where !word.ranges.contains(where: { $0.contains(candidate.text) }) { unknown.append((word.word, word.weight)) }
            unknown.sort { $0.weight > $1.weight }
            var dot = candidate.dot
            var squares = candidate.squares
            var restSquares = unknown.reduce(0.0) { $0 + $1.weight * $1.weight }
            var reachable = true
            for word in unknown {
                if let value = weight(of: Int32(word.word), in: candidate.text) {
                    dot += word.weight * value
                    squares += value * value
                }
                restSquares -= word.weight * word.weight
                let left = max(0, textNorm * textNorm - squares).squareRoot()
                if (dot + max(0, restSquares).squareRoot() * left) / (textNorm * queryNorm) + 1e-12 < needed {
                    reachable = false
                    break
                }
            }
            guard reachable else { continue }
            let similarity = min(1, dot / (textNorm * queryNorm))
            guard similarity >= threshold else { continue }
            let entry = (text: Int(candidate.text), similarity: similarity)
            let at = results.firstIndex { $0.similarity < similarity || ($0.similarity == similarity && $0.text > entry.text) } ?? results.count
            results.insert(entry, at: at)
            if results.count > limit { results.removeLast() }
        }
        return results
    }

    /// The parts of a postings list of `count` entries a query visits: all of it within `cap`;
    /// otherwise its first half-cap (the top of the timeline, where new and re-drafted posts
    /// land) and, given the position `near` of a text number in it, the half-cap around it.
    static func windows(count: Int, cap: Int, near: Int?) -> [Range<Int>] {
        guard count > cap else { return [0..<count] }
        guard let near else { return [0..<cap] }
        let head = 0..<cap / 2
        let start = min(max(head.upperBound, near - cap / 4), count - cap / 2)
        return [head, start..<start + cap / 2]
    }

    /// The position of the first entry of `list` whose text number is not below `text`.
    static func position(before text: Int32, in list: UnsafeBufferPointer<Posting>) -> Int {
        list.partitionPoint { !($0.text < text) }
    }

    /// Adds to a candidate's partial score in place: one dictionary lookup, not two.
    private static func add(_ dot: Double, _ squares: Double, norm: Float, to entry: inout (dot: Double, squares: Double, norm: Float)) {
        entry.dot += dot
        entry.squares += squares
        entry.norm = norm
    }

    /// The first `count` of `elements` in the order `isBetter` (a strict total order), best
    /// first: what sorting all of them and keeping `count` gives, in one pass that keeps `count`.
    static func best<Element>(_ count: Int, of elements: [Element], by isBetter: (Element, Element) -> Bool) -> [Element] {
        guard count > 0 else { return [] }
        var kept: [Element] = []
        kept.reserveCapacity(min(count, elements.count) + 1)
        for element in elements {
            if kept.count == count, !isBetter(element, kept[count - 1]) { continue }
            kept.insert(element, at: kept.partitionPoint { isBetter(element, $0) })
            if kept.count > count { kept.removeLast() }
        }
        return kept
    }

    /// Dot products turned into cosines, those reaching `threshold`, most similar first (ties:
    /// lower text number first), at most `limit`.
    private func ranked(
        _ scores: [Int32: (dot: Double, squares: Double, norm: Float)], queryNorm: Double, threshold: Double,
        limit: Int
    ) -> [(text: Int, similarity: Double)] {
        var results: [(text: Int, similarity: Double)] = []
        for (text, score) in scores {
            let dot = score.dot
            let norm = Double(score.norm) * queryNorm
            guard norm > 0 else { continue }
            let similarity = min(1, dot / norm)
            if similarity >= threshold { results.append((Int(text), similarity)) }
        }
        return TextIndex.best(limit, of: results) { $0.similarity != $1.similarity ? $0.similarity > $1.similarity : $0.text < $1.text }
    }

    /// Cosine similarity computed directly, without the index: the reference the index is
    /// tested against, and the brute-force baseline of the benchmarks.
    public func similarity(_ a: String, _ b: String) -> Double {
        let total = Double(textCount)
        func vector(_ text: String) -> [String: Double] {
            var counts: [String: Int] = [:]
            for word in TextIndex.words(text) { counts[word, default: 0] += 1 }
            var vector: [String: Double] = [:]
            for (word, count) in counts {
                let frequency = wordID(word).map { columns.documentFrequency[Int($0)] } ?? 0
                vector[word] = (1 + log(Double(count))) * TextIndex.idf(frequency, total)
            }
            return vector
        }
        let va = vector(a)
        let vb = vector(b)
        let dot = va.reduce(0.0) { $0 + $1.value * (vb[$1.key] ?? 0) }
        let na = va.values.reduce(0) { $0 + $1 * $1 }.squareRoot()
        let nb = vb.values.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return na > 0 && nb > 0 ? min(1, dot / (na * nb)) : 0
    }
}
