import Foundation

/// A TF-IDF word index over texts, answering "which texts are most similar to this one" by
/// cosine similarity without scanning every text.
///
/// Texts are split into lower-cased words (runs of letters and digits of at least two
/// characters, and numbers of any length). A word's weight in a text is `(1 + ln tf) × idf` with
/// `idf = ln((N + 1) / (df + 1)) + 1`; similarity is the cosine of the two weight vectors, in
/// [0, 1]. Each word keeps a postings list (text number and weight), so a query only visits
/// the texts that share a word with it. In collections of 10,000 texts or more, words found in
/// more than a tenth of the texts are skipped when the query has rarer ones: their weight is
/// small and their lists are long.
public final class TextIndex: Sendable {
    private let wordIDs: [String: Int32]
    private let postings: [[(text: Int32, weight: Float)]]
    private let documentFrequency: [Int32]
    private let norms: [Float]
    public let textCount: Int

    public init(_ texts: [String]) {
        var wordIDs: [String: Int32] = [:]
        var postings: [[(text: Int32, weight: Float)]] = []
        var counts: [[(word: Int32, count: Int32)]] = []
        counts.reserveCapacity(texts.count)
        for text in texts {
            var local: [Int32: Int32] = [:]
            for word in TextIndex.words(text) {
                let id: Int32
                if let existing = wordIDs[word] {
                    id = existing
                } else {
                    id = Int32(postings.count)
                    wordIDs[word] = id
                    postings.append([])
                }
                local[id, default: 0] += 1
            }
            counts.append(local.map { ($0.key, $0.value) })
        }
        var documentFrequency = [Int32](repeating: 0, count: postings.count)
        for entry in counts { for (word, _) in entry { documentFrequency[Int(word)] += 1 } }
        let total = Double(texts.count)
        var norms = [Float](repeating: 0, count: texts.count)
        for (textNumber, entry) in counts.enumerated() {
            var squares = 0.0
            for (word, count) in entry {
                let weight = (1 + log(Double(count))) * TextIndex.idf(documentFrequency[Int(word)], total)
                postings[Int(word)].append((Int32(textNumber), Float(weight)))
                squares += weight * weight
            }
            norms[textNumber] = Float(squares.squareRoot())
        }
        self.wordIDs = wordIDs
        self.postings = postings
        self.documentFrequency = documentFrequency
        self.norms = norms
        self.textCount = texts.count
    }

    static func idf(_ frequency: Int32, _ total: Double) -> Double {
        log((total + 1) / (Double(frequency) + 1)) + 1
    }

    /// The lower-cased words of `text`: runs of letters and digits of two or more characters,
    /// and numbers of any length.
    public static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        func flush() {
            if current.count >= 2 || current.first.map({ $0.properties.numericType != nil }) == true {
                words.append(String(current))
            }
            current = String.UnicodeScalarView()
        }
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value < 0x80 {
                // ASCII without Unicode property lookups: most of the text in most feeds.
                if (value >= 0x61 && value <= 0x7A) || (value >= 0x30 && value <= 0x39) {
                    current.append(scalar)
                } else if value >= 0x41 && value <= 0x5A {
                    current.append(Unicode.Scalar(UInt8(value + 0x20)))
                } else {
                    flush()
                }
            } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                current.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
            } else {
                flush()
            }
        }
        flush()
        return words
    }

    /// The texts whose cosine similarity with `query` is at least `threshold`, most similar
    /// first (ties: lower text number first), at most `limit` of them.
    public func mostSimilar(to query: String, threshold: Double, limit: Int = 10) -> [(text: Int, similarity: Double)] {
        guard textCount > 0 else { return [] }
        var local: [Int32: Int32] = [:]
        var unknown: [String: Int] = [:]
        for word in TextIndex.words(query) {
            if let id = wordIDs[word] { local[id, default: 0] += 1 } else { unknown[word, default: 0] += 1 }
        }
        guard !local.isEmpty else { return [] }
        // The query's norm counts every word, known or not, so unknown words lower the score.
        let total = Double(textCount)
        var queryWeights: [(word: Int32, weight: Double)] = []
        var squares = 0.0
        for (word, count) in local {
            let weight = (1 + log(Double(count))) * TextIndex.idf(documentFrequency[Int(word)], total)
            queryWeights.append((word, weight))
            squares += weight * weight
        }
        for (_, count) in unknown {
            let weight = (1 + log(Double(count))) * TextIndex.idf(0, total)
            squares += weight * weight
        }
        let queryNorm = squares.squareRoot()
        if let pruned = prunedCandidates(queryWeights, queryNorm: queryNorm, threshold: threshold) {
            return ranked(pruned, queryNorm: queryNorm, threshold: threshold, limit: limit)
        }
        // In large collections, words found in more than a tenth of the texts are skipped when
        // the query has rarer ones; below 10,000 texts every word counts and scores are exact.
        let commonLimit = textCount >= 10_000 ? textCount / 10 : Int.max
        let hasRare = queryWeights.contains { Int(documentFrequency[Int($0.word)]) <= commonLimit }
        var scores: [Int32: Double] = [:]
        for (word, weight) in queryWeights {
            if hasRare, Int(documentFrequency[Int(word)]) > commonLimit { continue }
            for posting in postings[Int(word)] {
                scores[posting.text, default: 0] += weight * Double(posting.weight)
            }
        }
        return ranked(scores, queryNorm: queryNorm, threshold: threshold, limit: limit)
    }

    /// Dot products turned into cosines, those reaching `threshold`, most similar first (ties:
    /// lower text number first), at most `limit`.
    private func ranked(_ scores: [Int32: Double], queryNorm: Double, threshold: Double, limit: Int) -> [(text: Int, similarity: Double)] {
        var results: [(text: Int, similarity: Double)] = []
        for (text, dot) in scores {
            let norm = Double(norms[Int(text)]) * queryNorm
            guard norm > 0 else { continue }
            let similarity = min(1, dot / norm)
            if similarity >= threshold { results.append((Int(text), similarity)) }
        }
        results.sort { $0.similarity != $1.similarity ? $0.similarity > $1.similarity : $0.text < $1.text }
        return Array(results.prefix(limit))
    }

    /// Exact dot products for the only texts that can reach `threshold`, when that is much less
    /// work than visiting every posting (prefix filtering).
    ///
    /// Take the query's words rarest first until the weight left over is under `threshold` ×
    /// the query's norm. By Cauchy–Schwarz a text sharing none of those words has a cosine below
    /// `threshold`, so the candidates are the texts in their postings; the other words'
    /// weights are found by binary search in their postings (sorted by text number). Nil below a
    /// threshold of 0.5, where nearly every word is in the prefix, and when the candidates'
    /// postings are not much shorter than all of the query's postings.
    private func prunedCandidates(_ queryWeights: [(word: Int32, weight: Double)], queryNorm: Double,
                                  threshold: Double) -> [Int32: Double]? {
        guard threshold >= 0.5, queryWeights.count > 1 else { return nil }
        let order = queryWeights.sorted {
            documentFrequency[Int($0.word)] != documentFrequency[Int($1.word)]
                ? documentFrequency[Int($0.word)] < documentFrequency[Int($1.word)] : $0.word < $1.word
        }
        var rest = order.reduce(0.0) { $0 + $1.weight * $1.weight }
        let bound = threshold * threshold * queryNorm * queryNorm
        var prefix = 0
        while prefix < order.count, rest >= bound {
            rest -= order[prefix].weight * order[prefix].weight
            prefix += 1
        }
        let prefixPostings = order[..<prefix].reduce(0) { $0 + postings[Int($1.word)].count }
        let allPostings = order.reduce(0) { $0 + postings[Int($1.word)].count }
        guard prefix < order.count, prefixPostings * 4 < allPostings else { return nil }
        var scores: [Int32: Double] = [:]
        for (word, weight) in order[..<prefix] {
            for posting in postings[Int(word)] { scores[posting.text, default: 0] += weight * Double(posting.weight) }
        }
        for (word, weight) in order[prefix...] {
            let list = postings[Int(word)]
            for (text, dot) in scores {
                var low = 0, high = list.count
                while low < high {
                    let middle = (low + high) / 2
                    if list[middle].text < text { low = middle + 1 } else { high = middle }
                }
                if low < list.count, list[low].text == text { scores[text] = dot + weight * Double(list[low].weight) }
            }
        }
        return scores
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
                let frequency = wordIDs[word].map { documentFrequency[Int($0)] } ?? 0
                vector[word] = (1 + log(Double(count))) * TextIndex.idf(frequency, total)
            }
            return vector
        }
        let va = vector(a), vb = vector(b)
        let dot = va.reduce(0.0) { $0 + $1.value * (vb[$1.key] ?? 0) }
        let na = va.values.reduce(0) { $0 + $1 * $1 }.squareRoot()
        let nb = vb.values.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return na > 0 && nb > 0 ? min(1, dot / (na * nb)) : 0
    }
}
